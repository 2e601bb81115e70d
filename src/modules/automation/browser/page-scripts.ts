// Scripts that run inside the page. They are plain JavaScript strings on purpose: the TypeScript
// toolchain (tsx/esbuild with keepNames) rewrites functions with helpers such as __name that do not exist
// in the page, so a function's source cannot be shipped as is. Arguments are embedded as JSON.

/**
 * Ref snapshot of one frame's document. Walks the flat tree (open shadow roots and slotted children,
 * not iframes: those are returned as `frame` markers and snapshotted by the server, frame by frame).
 *
 * Every interactive element gets a ref bound to the element itself: the page keeps a registry
 * (`window[key]`: ref -> Element, Element -> ref). An element keeps its ref across snapshots while it stays
 * connected, whatever happens to the rest of the page; new elements get new numbers from `base`, handed
 * in by the server, which never reuses a number. `key` carries a per-server nonce, so two servers attached
 * to one browser never share a registry.
 *
 * Returns { nodes, next, live, truncated }: `next` is the next free ref number, `live` the refs still bound
 * to connected elements (the server forgets the others: they answer REF_STALE).
 */
export const SNAPSHOT_SCRIPT = String.raw`(function (opts) {
  var KEY = opts.key;
  var reg = window[KEY];
  if (!reg) {
    reg = { byRef: new Map(), byEl: new WeakMap(), frames: [] };
    Object.defineProperty(window, KEY, { value: reg, configurable: true, enumerable: false, writable: false });
  }
  reg.byRef.forEach(function (el, ref) {
    if (!el.isConnected) { reg.byRef.delete(ref); reg.byEl.delete(el); }
  });
  var frames = [];
  reg.frames = frames;
  var next = opts.base;
  var count = 0;
  var max = opts.maxNodes;
  var truncated = false;
  var NAME_MAX = 100, TEXT_MAX = 200, VALUE_MAX = 100;
  var BR = { br: true };
  var SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'BASE']);
  var BLOCK = new Set(['ADDRESS', 'BLOCKQUOTE', 'BR', 'DD', 'DIV', 'DL', 'DT', 'FIGCAPTION', 'FIGURE', 'FORM',
    'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TD',
    'TH', 'TR', 'UL', 'ARTICLE', 'ASIDE', 'HEADER', 'FOOTER', 'LABEL', 'LEGEND', 'FIELDSET', 'DETAILS', 'SUMMARY']);
  var INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox',
    'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton', 'treeitem']);
  var FROM_CONTENT = new Set(['button', 'link', 'heading', 'option', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'treeitem', 'cell', 'columnheader', 'rowheader', 'checkbox', 'radio', 'switch', 'tooltip',
    'generic', 'legend', 'caption']);
  var TEXT_INPUTS = new Set(['', 'text', 'email', 'tel', 'url', 'search', 'password', 'number', 'date',
    'datetime-local', 'month', 'week', 'time', 'color', 'range']);

  function collapse(s) { return s.replace(/\s+/g, ' ').trim(); }
  function clip(s, n) { s = collapse(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
  function kids(n) {
    if (n.nodeType === 1) {
      if (n.shadowRoot) return n.shadowRoot.childNodes;
      if (n.tagName === 'SLOT') {
        var a = n.assignedNodes({ flatten: true });
        if (a.length) return a;
      }
    }
    return n.childNodes;
  }
  function textOf(node, budget, exclude) {
    var out = '';
    function rec(n) {
      if (out.length >= budget) return;
      if (n.nodeType === 3) { out += n.nodeValue; return; }
      if (n.nodeType === 1) {
        if (n === exclude || SKIP.has(n.tagName)) return;
        if (n.getAttribute('aria-hidden') === 'true' || n.hasAttribute('hidden')) return;
        if (n.tagName === 'IMG') { var alt = n.getAttribute('alt'); if (alt) out += ' ' + alt + ' '; return; }
        if (n.tagName === 'INPUT' || n.tagName === 'SELECT' || n.tagName === 'TEXTAREA') return;
        if (BLOCK.has(n.tagName)) out += ' ';
      } else if (n.nodeType !== 11) return;
      var c = kids(n);
      for (var i = 0; i < c.length; i++) rec(c[i]);
      if (n.nodeType === 1 && BLOCK.has(n.tagName)) out += ' ';
    }
    rec(node);
    return collapse(out);
  }
  function roleOf(el) {
    var explicit = el.getAttribute('role');
    if (explicit) {
      var r = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (r === 'none' || r === 'presentation') return '';
      if (r) return r;
    }
    switch (el.tagName) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : '';
      case 'BUTTON': case 'SUMMARY': return 'button';
      case 'INPUT': {
        var t = (el.getAttribute('type') || '').toLowerCase();
        if (t === 'button' || t === 'submit' || t === 'reset' || t === 'image' || t === 'file') return 'button';
        if (t === 'checkbox') return 'checkbox';
        if (t === 'radio') return 'radio';
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'search') return el.getAttribute('list') ? 'combobox' : 'searchbox';
        return el.getAttribute('list') ? 'combobox' : 'textbox';
      }
      case 'TEXTAREA': return 'textbox';
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'OPTION': return 'option';
      case 'IMG': return el.getAttribute('alt') === '' ? '' : 'img';
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'NAV': return 'navigation';
      case 'MAIN': return 'main';
      case 'HEADER': return 'banner';
      case 'FOOTER': return 'contentinfo';
      case 'ASIDE': return 'complementary';
      case 'FORM': return 'form';
      case 'SECTION': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
      case 'ARTICLE': return 'article';
      case 'UL': case 'OL': case 'MENU': return 'list';
      case 'LI': return 'listitem';
      case 'TABLE': return 'table';
      case 'TR': return 'row';
      case 'TD': return 'cell';
      case 'TH': return 'columnheader';
      case 'DIALOG': return 'dialog';
      case 'FIELDSET': case 'DETAILS': return 'group';
      case 'P': return 'paragraph';
      case 'IFRAME': case 'FRAME': return 'iframe';
      case 'PROGRESS': return 'progressbar';
      case 'METER': return 'meter';
      case 'HR': return 'separator';
      case 'BLOCKQUOTE': return 'blockquote';
    }
    if (el.isContentEditable && el.hasAttribute('contenteditable')) return 'textbox';
    return '';
  }
  function clickable(el) {
    if (el.hasAttribute('onclick')) return true;
    return el.hasAttribute('tabindex') && el.tabIndex >= 0;
  }
  function byId(el, id) {
    var root = el.getRootNode();
    return root.getElementById ? root.getElementById(id) : document.getElementById(id);
  }
  function nameOf(el, role) {
    var s = el.getAttribute('aria-labelledby');
    if (s) {
      var parts = [];
      s.split(/\s+/).forEach(function (id) { var t = id && byId(el, id); if (t) parts.push(textOf(t, 300)); });
      var joined = parts.join(' ').trim();
      if (joined) return clip(joined, NAME_MAX);
    }
    s = el.getAttribute('aria-label');
    if (s && s.trim()) return clip(s, NAME_MAX);
    var tag = el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS') {
      var type = tag === 'INPUT' ? (el.getAttribute('type') || '').toLowerCase() : '';
      if (type === 'submit' || type === 'reset' || type === 'button')
        return clip(el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''), NAME_MAX);
      if (type === 'image') return clip(el.getAttribute('alt') || el.value || 'Submit', NAME_MAX);
      if (el.labels && el.labels.length) {
        var lt = [];
        for (var i = 0; i < el.labels.length; i++) lt.push(textOf(el.labels[i], 300, el));
        var l = lt.join(' ').trim();
        if (l) return clip(l, NAME_MAX);
      }
      return clip(el.getAttribute('title') || el.getAttribute('placeholder') || '', NAME_MAX);
    }
    if (tag === 'IMG' || tag === 'AREA') return clip(el.getAttribute('alt') || el.getAttribute('title') || '', NAME_MAX);
    if (tag === 'IFRAME' || tag === 'FRAME') return clip(el.getAttribute('title') || el.getAttribute('name') || '', NAME_MAX);
    if (tag === 'FIELDSET') { var lg = el.querySelector(':scope > legend'); if (lg) return clip(textOf(lg, 300), NAME_MAX); }
    if (tag === 'TABLE') { var cp = el.querySelector(':scope > caption'); if (cp) return clip(textOf(cp, 300), NAME_MAX); }
    if (FROM_CONTENT.has(role)) {
      var txt = textOf(el, 300);
      if (txt) return clip(txt, NAME_MAX);
    }
    return clip(el.getAttribute('title') || '', NAME_MAX);
  }
  function refFor(el) {
    var r = reg.byEl.get(el);
    if (!r) { r = 'e' + next++; reg.byEl.set(el, r); }
    reg.byRef.set(r, el);
    return r;
  }
  function describe(el, role, node) {
    var tag = el.tagName;
    var st = [];
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      var checked;
      if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) checked = el.indeterminate ? 'mixed' : el.checked;
      else { var ac = el.getAttribute('aria-checked'); checked = ac === 'true' ? true : ac === 'mixed' ? 'mixed' : false; }
      if (checked === true) st.push('checked'); else if (checked === 'mixed') st.push('mixed');
    }
    if ((typeof el.disabled === 'boolean' && el.matches(':disabled')) || el.getAttribute('aria-disabled') === 'true') st.push('disabled');
    var ex = el.getAttribute('aria-expanded');
    if (ex === 'true') st.push('expanded'); else if (ex === 'false') st.push('collapsed');
    if (role === 'option' || role === 'tab' || role === 'treeitem' || role === 'row' || role === 'gridcell') {
      if (el.selected === true || el.getAttribute('aria-selected') === 'true') st.push('selected');
    }
    if (el.getAttribute('aria-pressed') === 'true') st.push('pressed');
    if (el.required === true || el.getAttribute('aria-required') === 'true') st.push('required');
    if ((tag === 'INPUT' || tag === 'TEXTAREA') && el.readOnly === true) st.push('readonly');
    if (st.length) node.states = st;
    if (role === 'heading') {
      var lv = Number(el.getAttribute('aria-level')) || (/^H[1-6]$/.test(tag) ? Number(tag[1]) : 0);
      if (lv) node.level = lv;
    }
    var v;
    if (tag === 'INPUT' && TEXT_INPUTS.has((el.getAttribute('type') || '').toLowerCase())) {
      v = el.type === 'password' ? (el.value ? '\u2022\u2022\u2022\u2022' : '') : el.value;
    } else if (tag === 'TEXTAREA') v = el.value;
    else if (tag === 'SELECT' && role === 'combobox') { var o = el.selectedOptions && el.selectedOptions[0]; v = o ? o.label || o.text : ''; }
    else if (role === 'textbox' && el.isContentEditable) v = textOf(el, 300);
    if (v) node.value = clip(v, VALUE_MAX);
  }
  function finish(items) {
    var res = [];
    var run = '';
    function flush() {
      var t = collapse(run);
      run = '';
      if (!t) return;
      if (count >= max) { truncated = true; return; }
      count++;
      res.push({ role: 'text', text: clip(t, TEXT_MAX) });
    }
    for (var i = 0; i < items.length; i++) {
      var it = items[i];
      if (typeof it === 'string') run += it;
      else if (it === BR) { run += ' '; flush(); }
      else { flush(); res.push(it); }
    }
    flush();
    return res;
  }
  function hasRef(items) {
    for (var i = 0; i < items.length; i++) {
      var it = items[i];
      if (it && typeof it === 'object' && (it.ref || (it.children && hasRef(it.children)))) return true;
    }
    return false;
  }
  function visitChildren(n, out, ptr) {
    var c = kids(n);
    for (var i = 0; i < c.length && !truncated; i++) visit(c[i], out, ptr);
  }
  function visit(n, out, parentPointer) {
    if (n.nodeType === 3) { var t = n.nodeValue; if (t && /\S/.test(t)) out.push(t); else if (t) out.push(' '); return; }
    if (n.nodeType !== 1) return;
    var el = n;
    var tag = el.tagName;
    if (SKIP.has(tag)) return;
    if (el.getAttribute('aria-hidden') === 'true') return;
    if (tag === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return;
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) {
      var d = getComputedStyle(el).display;
      if (d === 'none') return;
      if (d !== 'contents') { visitChildren(el, out, parentPointer); return; }
    }
    var role = roleOf(el);
    // cursor:pointer where the parent has none marks script-driven click targets (div onClick) too.
    var pointer = getComputedStyle(el).cursor === 'pointer';
    var isClick = !role && (clickable(el) || (pointer && !parentPointer));
    var block = BLOCK.has(tag);
    if (!role && !isClick) {
      if (block) out.push(BR);
      visitChildren(el, out, pointer);
      if (block) out.push(BR);
      return;
    }
    var pre = null;
    if (isClick && !clickable(el)) {
      // Pointer cursor only: a wrapper around real controls is not a target of its own.
      pre = [];
      visitChildren(el, pre, pointer);
      if (hasRef(pre)) {
        if (block) out.push(BR);
        for (var p = 0; p < pre.length; p++) out.push(pre[p]);
        if (block) out.push(BR);
        return;
      }
    }
    if (count >= max) { truncated = true; return; }
    count++;
    if (!role) role = 'generic';
    var node = { role: role };
    var name = nameOf(el, role);
    if (name) node.name = name;
    describe(el, role, node);
    if (INTERACTIVE.has(role) || isClick) node.ref = refFor(el);
    if (block) out.push(BR);
    out.push(node);
    if (block) out.push(BR);
    if (role === 'iframe') { node.frame = frames.push(el) - 1; return; }
    if (tag === 'INPUT' || tag === 'TEXTAREA' || (role === 'textbox' && el.isContentEditable)) return;
    if (tag === 'SELECT') {
      if (role === 'listbox') {
        var opts2 = [];
        for (var k = 0; k < el.options.length; k++) {
          var op = el.options[k];
          var on = { role: 'option', name: clip(op.label || op.text, NAME_MAX) };
          if (op.selected) on.states = ['selected'];
          opts2.push(on);
          count++;
        }
        if (opts2.length) node.children = opts2;
      }
      return;
    }
    var inner = pre;
    if (!inner) { inner = []; visitChildren(el, inner, pointer); }
    var children = finish(inner);
    if (node.name && FROM_CONTENT.has(role)) children = children.filter(function (c) { return c.role !== 'text'; });
    if (!node.name && children.length === 1 && children[0].role === 'text') node.text = children[0].text;
    else if (children.length) node.children = children;
  }
  var rootItems = [];
  var root = document.documentElement;
  if (root) visit(root, rootItems, false);
  var nodes = finish(rootItems);
  return { nodes: nodes, next: next, live: Array.from(reg.byRef.keys()), truncated: truncated };
})`;

/** The snapshot call, returning its result as a JSON string: one string crosses CDP much faster than
 * Playwright's structured serialization of a large object tree (20 ms vs 250 ms on 5,000 elements). */
export function snapshotExpression(opts: { key: string; base: number; maxNodes: number }): string {
  return `JSON.stringify(${SNAPSHOT_SCRIPT}(${JSON.stringify(opts)}))`;
}

/** Expression resolving to the element bound to `ref` in this frame, or null if it is gone. */
export function refLookupExpression(key: string, ref: string): string {
  return `(function (k, r) { var g = window[k]; var el = g && g.byRef.get(r); return el && el.isConnected ? el : null; })(${JSON.stringify(key)}, ${JSON.stringify(ref)})`;
}

/**
 * Readability-style extraction of the page's main content: picks <article>/<main>/[role=main] when it
 * holds real text, otherwise the block with the most paragraph text; drops navigation, asides, forms and
 * scripts; keeps headings (as #), list items (as -) and paragraph breaks.
 */
export const READABLE_SCRIPT = String.raw`(function (maxChars) {
  var DROP = 'script,style,noscript,template,nav,header,footer,aside,form,button,iframe,svg,canvas,dialog,[hidden],[aria-hidden="true"],[role="navigation"],[role="banner"],[role="contentinfo"],[role="complementary"]';
  var BLOCK = /^(P|DIV|SECTION|ARTICLE|MAIN|UL|OL|LI|TABLE|TR|BLOCKQUOTE|PRE|H[1-6]|DL|DT|DD|FIGURE|FIGCAPTION|BR|HR)$/;
  function textLen(el) { return (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim().length; }
  function pick() {
    var sel = ['article', 'main', '[role="main"]', '#content', '#main', '.post', '.article', '.content'];
    for (var i = 0; i < sel.length; i++) {
      var list = document.querySelectorAll(sel[i]);
      var best = null, bestLen = 0;
      for (var j = 0; j < list.length; j++) { var l = textLen(list[j]); if (l > bestLen) { best = list[j]; bestLen = l; } }
      if (best && bestLen >= 200) return best;
    }
    var scores = new Map();
    var ps = document.querySelectorAll('p, pre, blockquote, li');
    for (var k = 0; k < ps.length; k++) {
      var parent = ps[k].parentElement;
      if (!parent) continue;
      var len = textLen(ps[k]);
      if (len < 25) continue;
      scores.set(parent, (scores.get(parent) || 0) + len);
      if (parent.parentElement) scores.set(parent.parentElement, (scores.get(parent.parentElement) || 0) + len / 2);
    }
    var top = null, topScore = 0;
    scores.forEach(function (s, el) { if (s > topScore) { top = el; topScore = s; } });
    return top || document.body || document.documentElement;
  }
  var rootEl = pick();
  var buf = '';
  function emit(s) { buf += s; }
  function brk(n) {
    buf = buf.replace(/[ \t]+$/, '');
    var have = /\n*$/.exec(buf)[0].length;
    for (var k = have; k < n; k++) buf += '\n';
  }
  function walk(n) {
    if (buf.length > maxChars * 2) return;
    if (n.nodeType === 3) { emit(n.nodeValue.replace(/\s+/g, ' ')); return; }
    if (n.nodeType !== 1) return;
    if (n !== rootEl && n.matches(DROP)) return;
    var tag = n.tagName;
    if (n.checkVisibility && !n.checkVisibility()) { if (getComputedStyle(n).display !== 'contents') return; }
    if (tag === 'BR') { brk(1); return; }
    if (tag === 'IMG') { var alt = n.getAttribute('alt'); if (alt) emit(' ' + alt + ' '); return; }
    var block = BLOCK.test(tag);
    var gap = /^(LI|TR|DT|DD)$/.test(tag) ? 1 : 2;
    if (block) brk(gap);
    if (/^H[1-6]$/.test(tag)) emit('#'.repeat(Number(tag[1])) + ' ');
    if (tag === 'LI') emit('- ');
    var c = n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes;
    for (var i = 0; i < c.length; i++) walk(c[i]);
    if (block) brk(gap);
  }
  walk(rootEl);
  var text = buf
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^- *\n/gm, '')
    .trim();
  var truncated = text.length > maxChars;
  if (truncated) text = text.slice(0, maxChars);
  var h1 = document.querySelector('h1');
  var title = (document.title || (h1 ? h1.textContent : '') || '').replace(/\s+/g, ' ').trim();
  return { title: title, text: text, truncated: truncated };
})`;

export function readableExpression(maxChars: number): string {
  return `${READABLE_SCRIPT}(${JSON.stringify(maxChars)})`;
}
