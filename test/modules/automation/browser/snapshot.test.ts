// Ref snapshots against real Chromium: content, iframes (same-origin and out-of-process), open shadow
// DOM, refs bound to their own DOM node (surviving re-renders elsewhere, refusing when gone), and diffs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rejectsWith, refOf, startHarness, type Harness } from '../../../fixtures/browser/harness.ts';

let h: Harness;

const evalJs = async (script: string) => (await h.client.act({ action: 'eval', script })).result;
const text = async (target: string) => (await h.client.act({ action: 'extract', target, what: 'text' })).value;

describe('ref snapshots', { timeout: 180_000 }, () => {
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.close();
  });

  test('a snapshot is the accessibility tree as compact lines, refs on interactive elements only', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/form` });
    const s = await h.client.snapshot();
    assert.equal(s.title, 'Form page');
    assert.equal(s.url, `${h.site.url}/form`);
    const lines = s.text.split('\n');
    assert.equal(s.lines, lines.length);
    assert.ok(lines.includes('heading "Sign up" [level=1]'), s.text);
    assert.ok(lines.includes('form'));
    assert.match(s.text, /^ {2}textbox "Name" \[ref=e\d+\]$/m);
    assert.match(s.text, /^ {2}checkbox "I agree" \[ref=e\d+\]$/m);
    assert.match(s.text, /^ {2}combobox "Color" \[ref=e\d+\] = "green"$/m);
    assert.match(s.text, /^ {2}button "Send" \[ref=e\d+\]$/m);
    assert.match(s.text, /^link "Go elsewhere" \[ref=e\d+\]$/m);
    assert.match(s.text, /^list\n {2}listitem: "One"\n {2}listitem: "Two"\n {2}listitem: "Three"$/m);
    assert.ok(!s.text.includes('secret text'), 'display:none content is not in the tree');
    const refLines = lines.filter((l) => /\[ref=e\d+\]/.test(l));
    assert.equal(s.refs, refLines.length);
    assert.ok(refLines.every((l) => /^\s*(textbox|checkbox|combobox|button|link) /.test(l)), refLines.join('\n'));
    assert.ok(!/heading .*\[ref=/.test(s.text) && !/listitem.*\[ref=/.test(s.text), 'static content carries no ref');
    const refs = refLines.map((l) => /\[ref=(e\d+)\]/.exec(l)![1]);
    assert.equal(new Set(refs).size, refs.length, 'refs are unique');
  });

  test('iframes: same-origin and cross-site frames are in the snapshot, and their refs act inside them', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/frames` });
    const s = await h.client.snapshot();
    assert.equal(s.frames, 3, s.text);
    assert.match(s.text, /^iframe "Same origin"\n {2}button "Frame button" \[ref=e\d+\]\n {2}textbox "Frame input" \[ref=e\d+\]$/m);
    assert.match(s.text, /^iframe "Cross site"\n {2}button "Frame button" \[ref=e\d+\]\n {2}textbox "Frame input" \[ref=e\d+\]$/m);
    const [sameBtn, crossBtn] = [...s.text.matchAll(/button "Frame button" \[ref=(e\d+)\]/g)].map((m) => m[1]!);
    const crossInput = [...s.text.matchAll(/textbox "Frame input" \[ref=(e\d+)\]/g)].map((m) => m[1]!)[1]!;
    await h.client.act({ action: 'click', target: crossBtn! });
    assert.equal(await text('#cross >>> #fo'), 'frame clicked ?who=cross');
    assert.equal(await text('#same >>> #fo'), '', 'the other frame was not touched');
    await h.client.act({ action: 'click', target: sameBtn! });
    assert.equal(await text('#same >>> #fo'), 'frame clicked ?who=same');
    await h.client.act({ action: 'type', target: crossInput, text: 'typed across sites' });
    assert.equal((await h.client.act({ action: 'extract', target: '#cross >>> #fi', what: 'attr:id' })).value, 'fi');
    const after = await h.client.snapshot();
    assert.match(after.text, new RegExp(`textbox "Frame input" \\[ref=${crossInput}\\] = "typed across sites"`));
  });

  test('open shadow DOM: shadow content and slotted light DOM are in the snapshot; refs and selectors reach in', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/shadow` });
    const s = await h.client.snapshot();
    assert.match(s.text, /^text "Slotted label"\nbutton "Shadow button" \[ref=e\d+\]\ntextbox "Shadow input" \[ref=e\d+\]$/m);
    await h.client.act({ action: 'type', target: refOf(s.text, 'textbox "Shadow input"'), text: 'abc' });
    await h.client.act({ action: 'click', target: refOf(s.text, 'button "Shadow button"') });
    assert.equal(await text('#so'), 'shadow clicked:abc');
    await h.client.act({ action: 'type', target: '#si', text: 'css' });
    await h.client.act({ action: 'click', target: '#sb' });
    assert.equal(await text('#so'), 'shadow clicked:css');
  });

  test('script-driven click targets (cursor:pointer, onclick, tabindex) get refs, once per target', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/clickables` });
    const s = await h.client.snapshot();
    const card = refOf(s.text, 'generic "Open card details"');
    refOf(s.text, 'generic "Focusable tab"');
    const inline = refOf(s.text, 'generic "Inline handler"');
    assert.doesNotMatch(s.text, /generic "Real link inside"/, 'a pointer wrapper around a link is not a second target');
    assert.match(s.text, /link "Real link inside" \[ref=e\d+\]/);
    assert.doesNotMatch(s.text, /text "Open card"/, 'the card names itself from its content');
    await h.client.act({ action: 'click', target: card });
    await h.client.act({ action: 'click', target: inline });
    assert.equal(await text('#log'), 'card;inline;');
  });

  test('refs survive a re-render of other parts of the page and keep their number', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/rerender` });
    const s1 = await h.client.snapshot();
    const stable = refOf(s1.text, 'button "Stable"');
    const item = refOf(s1.text, 'button "Item a1"');
    await h.client.act({ action: 'click', target: '#regen' });
    await evalJs("document.getElementById('status').textContent = 'Busy'");
    await h.client.act({ action: 'click', target: stable });
    assert.equal(await text('#sc'), '1', 'the old ref still clicks its own button');
    const s2 = await h.client.snapshot();
    assert.equal(refOf(s2.text, 'button "Stable"'), stable, 'same element, same ref');
    const item2 = refOf(s2.text, 'button "Item a2"');
    assert.notEqual(item2, item, 'a new element gets a new ref');
    assert.ok(Number(item2.slice(1)) > Number(item.slice(1)), 'ref numbers are never reused');
    await rejectsWith(h.client.act({ action: 'click', target: item }), 409, 'REF_STALE', new RegExp(`${item}.*snapshot`));
  });

  test('a ref whose node is gone is REF_STALE, naming the ref, and nothing is clicked', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/rerender` });
    const s = await h.client.snapshot();
    const victim = refOf(s.text, 'button "Victim"');
    await evalJs('replaceVictim()');
    // Reading the removed node is something Chromium would happily do (a detached element still has
    // its text): only our own check can refuse it, so this fails if the lookup finds removed nodes.
    await rejectsWith(h.client.act({ action: 'extract', target: victim, what: 'text' }), 409, 'REF_STALE', new RegExp(`Ref ${victim} is stale: its element is no longer in the page`));
    // An identical button (same role, same name, same place) now stands where the old one was.
    const err = await rejectsWith(h.client.act({ action: 'click', target: victim }), 409, 'REF_STALE', new RegExp(`Ref ${victim} is stale`));
    assert.equal(err.details?.ref, victim);
    assert.equal(await evalJs('window.victimClicks ?? 0'), 0, 'the look-alike button was not clicked');
    await rejectsWith(h.client.act({ action: 'type', target: victim, text: 'x' }), 409, 'REF_STALE');
    const s2 = await h.client.snapshot();
    const fresh = refOf(s2.text, 'button "Victim"');
    assert.notEqual(fresh, victim);
    await h.client.act({ action: 'click', target: fresh });
    assert.equal(await evalJs('window.victimClicks'), 1);
  });

  test('a ref is REF_STALE on the same node even with its element cached, and after navigation', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/rerender` });
    const s = await h.client.snapshot();
    const victim = refOf(s.text, 'button "Victim"');
    await h.client.act({ action: 'click', target: victim }); // resolves (and caches) the element
    assert.equal(await evalJs('window.victimClicks'), 1);
    await evalJs('replaceVictim()');
    await rejectsWith(h.client.act({ action: 'click', target: victim }), 409, 'REF_STALE');
    assert.equal(await evalJs('window.victimClicks'), 1, 'no second click landed anywhere');

    const stable = refOf((await h.client.snapshot()).text, 'button "Stable"');
    await h.client.act({ action: 'click', target: stable }); // cached again
    assert.equal(await evalJs('window.stableClicks'), 1);
    await h.client.act({ action: 'open', url: `${h.site.url}/rerender` }); // same layout, new document
    await rejectsWith(h.client.act({ action: 'click', target: stable }), 409, 'REF_STALE');
    assert.equal(await evalJs('window.stableClicks ?? 0'), 0);
    const again = refOf((await h.client.snapshot()).text, 'button "Stable"');
    assert.notEqual(again, stable, 'the new document never reuses an old number');
  });

  test('snapshot --diff reports added, removed and changed lines against the previous snapshot', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/rerender` });
    const first = await h.client.snapshot({ diff: true });
    assert.ok(first.diff);
    const s1 = await h.client.snapshot();
    const unchanged = await h.client.snapshot({ diff: true });
    assert.equal(unchanged.hadPrevious, true);
    assert.deepEqual(unchanged.diff && [unchanged.diff.added, unchanged.diff.removed, unchanged.diff.changed], [[], [], []]);
    assert.equal(unchanged.diff?.unchanged, s1.lines);

    await evalJs("document.getElementById('status').textContent = 'Busy'; regen(); document.getElementById('area').remove()");
    const d = await h.client.snapshot({ diff: true });
    assert.ok(d.diff);
    assert.deepEqual(d.diff.changed, [{ before: 'text "Idle"', after: 'text "Busy"' }]);
    assert.deepEqual(d.diff.added.map((l) => l.replace(/ \[ref=e\d+\]/, '')), ['button "Item a2"', 'button "Item b2"', 'button "Item c2"']);
    assert.deepEqual(d.diff.removed.map((l) => l.replace(/ \[ref=e\d+\]/, '')), ['button "Item a1"', 'button "Item b1"', 'button "Item c1"', 'button "Victim"']);

    // A changed value on the same element is a change of its line.
    const ref = refOf(d.text, 'button "Stable"');
    await h.client.act({ action: 'click', target: ref });
    await evalJs("document.getElementById('stable').setAttribute('aria-pressed', 'true')");
    const d2 = await h.client.snapshot({ diff: true });
    assert.deepEqual(d2.diff?.changed, [
      { before: `button "Stable" [ref=${ref}]`, after: `button "Stable" [pressed] [ref=${ref}]` },
      { before: 'text "0"', after: 'text "1"' },
    ]);
  });

  test('a new tab has no previous snapshot to diff against', async () => {
    const t = await h.client.openTab({ url: `${h.site.url}/landing` });
    const s = await h.client.snapshot({ diff: true, tab: t.tab.id });
    assert.equal(s.hadPrevious, false);
    assert.equal(s.tab, t.tab.id);
    assert.deepEqual(s.diff?.added, s.text.split('\n'));
    await h.client.closeTab(t.tab.id);
  });

  test('snapshot of a 5,000-element page stays bounded by maxNodes', async () => {
    await h.client.act({ action: 'open', url: `${h.site.url}/big?rows=1000` });
    const s = await h.client.snapshot();
    assert.equal(s.refs, 4000);
    assert.equal(s.truncated, false);
    const small = await h.client.snapshot({ maxNodes: 100 });
    assert.equal(small.truncated, true);
    assert.ok(small.lines <= 101, `${small.lines} lines`);
    assert.equal(refOf(small.text, 'button "Button 0"'), refOf(s.text, 'button "Button 0"'));
  });
});
