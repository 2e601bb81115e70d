// The board: work items in five lanes. Add an item (an empty one is refused where it is typed), move a
// card back or on (its buttons, or Alt+← / Alt+→ while it has the focus; the focus follows the card),
// edit its title and detail, delete it after a confirmation.
import { useEffect, useRef, useState } from 'preact/hooks';
import { BOARD_LANES } from '../../src/protocol/dashboard.ts';
import { Badge, Button, Card, Field, IconButton } from '../ui/components.tsx';
import { api, type BoardItem, type Instance } from './api.ts';
import { confirmAction, failed } from './feedback.tsx';
import { FormError, useFormErrors } from './parts.tsx';

type Lane = (typeof BOARD_LANES)[number];
const LANE_NAMES: Record<Lane, string> = { backlog: 'Backlog', ready: 'Ready', active: 'Active', review: 'Review', done: 'Done' };

const itemPath = (id: string) => `/api/dashboard/board/items/${encodeURIComponent(id)}`;

function EditItem({ item, onDone }: { item: BoardItem; onDone: (saved: boolean) => void }) {
  const [title, setTitle] = useState(item.title);
  const [detail, setDetail] = useState(item.detail);
  const [busy, setBusy] = useState(false);
  const form = useFormErrors(['title', 'detail'] as const);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const save = async () => {
    form.clear();
    if (!title.trim()) return form.set('title', 'A card needs a title.');
    setBusy(true);
    try {
      await api(itemPath(item.id), { method: 'PATCH', body: { title: title.trim(), detail } });
      onDone(true);
    } catch (err) {
      form.show(err);
      setBusy(false);
    }
  };
  return (
    <form
      class="board-edit"
      aria-label={`Edit ${item.title}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onDone(false);
        }
      }}
    >
      <Field id={`edit-title-${item.id}`} label="Title" error={form.errors.title}>
        {(c) => <input {...c} ref={first} value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />}
      </Field>
      <Field id={`edit-detail-${item.id}`} label="Detail" error={form.errors.detail}>
        {(c) => <textarea {...c} rows={3} value={detail} onInput={(e) => setDetail((e.target as HTMLTextAreaElement).value)} />}
      </Field>
      <FormError message={form.errors.form} />
      <div class="form-actions">
        <Button type="submit" variant="primary" small disabled={busy}>
          Save
        </Button>
        <Button small onClick={() => onDone(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function BoardCard({
  item,
  instances,
  editing,
  onEdit,
  onMove,
  onDelete,
}: {
  item: BoardItem;
  instances: Instance[];
  editing: boolean;
  onEdit: (open: boolean, saved?: boolean) => void;
  onMove: (item: BoardItem, step: -1 | 1, control: 'back' | 'on') => void;
  onDelete: (item: BoardItem) => void;
}) {
  const at = BOARD_LANES.indexOf(item.lane);
  const back = BOARD_LANES[at - 1];
  const on = BOARD_LANES[at + 1];
  const instance = item.instanceId ? (instances.find((i) => i.id === item.instanceId)?.label ?? item.instanceId) : null;
  if (editing) {
    return (
      <li class="board-card editing" data-id={item.id}>
        <EditItem item={item} onDone={(saved) => onEdit(false, saved)} />
      </li>
    );
  }
  return (
    <li
      class="board-card"
      data-id={item.id}
      onKeyDown={(e) => {
        if (!e.altKey || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
        const step = e.key === 'ArrowLeft' ? -1 : 1;
        if ((step === -1 && !back) || (step === 1 && !on)) return;
        e.preventDefault();
        onMove(item, step, step === -1 ? 'back' : 'on');
      }}
    >
      <p class="board-title">{item.title}</p>
      {item.detail && <p class="board-detail">{item.detail}</p>}
      {(instance || item.source !== 'user') && (
        <p class="board-meta">
          {instance && <Badge>{instance}</Badge>}
          {item.source === 'connector' && <Badge tone="accent">from an agent</Badge>}
          {item.source === 'message' && <Badge>from a message</Badge>}
        </p>
      )}
      <div class="board-actions">
        <IconButton small icon="back" data-control="back" label={back ? `Move “${item.title}” back to ${LANE_NAMES[back]}` : `“${item.title}” is in the first lane`} disabled={!back} onClick={() => onMove(item, -1, 'back')} />
        <IconButton small icon="chevron" data-control="on" label={on ? `Move “${item.title}” on to ${LANE_NAMES[on]}` : `“${item.title}” is in the last lane`} disabled={!on} onClick={() => onMove(item, 1, 'on')} />
        <IconButton small icon="pencil" class="push-end" data-control="edit" label={`Edit “${item.title}”`} onClick={() => onEdit(true)} />
        <IconButton small icon="trash" data-control="delete" label={`Delete “${item.title}”`} onClick={() => onDelete(item)} />
      </div>
    </li>
  );
}

export function Board({ items, instances, reload }: { items: BoardItem[]; instances: Instance[]; reload: () => Promise<void> }) {
  const [title, setTitle] = useState('');
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const form = useFormErrors(['title'] as const);
  const root = useRef<HTMLDivElement>(null);
  /** Where the focus goes once the board shows a change: a card's control, or the add field. */
  const focusNext = useRef<{ id: string; control: string } | null>(null);
  useEffect(() => {
    const want = focusNext.current;
    if (!want || !root.current) return;
    const card = root.current.querySelector<HTMLElement>(`.board-card[data-id="${CSS.escape(want.id)}"]`);
    if (!card) return;
    focusNext.current = null;
    // the same control of the moved card, or (at the first or last lane, where it is disabled) the other one
    const control = card.querySelector<HTMLButtonElement>(`[data-control="${want.control}"]:not(:disabled)`) ?? card.querySelector<HTMLButtonElement>('[data-control="back"]:not(:disabled), [data-control="on"]:not(:disabled)');
    control?.focus();
  }, [items, editing]);

  const add = async () => {
    form.clear();
    const text = title.trim();
    if (!text) return form.set('title', 'Type what the item is about first.');
    setAdding(true);
    try {
      await api('/api/dashboard/board/items', { method: 'POST', body: { title: text } });
      setTitle('');
      await reload();
    } catch (err) {
      form.show(err);
    } finally {
      setAdding(false);
    }
  };
  const move = (item: BoardItem, step: -1 | 1, control: 'back' | 'on') => {
    const lane = BOARD_LANES[BOARD_LANES.indexOf(item.lane) + step];
    if (!lane) return;
    focusNext.current = { id: item.id, control };
    void api(itemPath(item.id), { method: 'PATCH', body: { lane } }).then(reload, failed(`Moving “${item.title}” failed`));
  };
  const remove = async (item: BoardItem) => {
    const yes = await confirmAction({ title: `Delete “${item.title}”?`, body: <p>The card and its detail are deleted from the board; this cannot be undone.</p>, confirmLabel: 'Delete', danger: true });
    if (!yes) return;
    await api(itemPath(item.id), { method: 'DELETE' }).then(reload, failed(`Deleting “${item.title}” failed`));
  };
  return (
    <Card title="Board" titleId="board-title" class="board">
      <form
        class="board-add"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <Field id="board-new" label="New item" help="Added to Backlog. Move a card with its arrows, or Alt+← / Alt+→ while it has the focus." error={form.errors.title}>
          {(c) => (
            <div class="input-row">
              <input
                {...c}
                value={title}
                placeholder="What needs doing?"
                onInput={(e) => {
                  setTitle((e.target as HTMLInputElement).value);
                  if (form.errors.title) form.clear();
                }}
              />
              <Button type="submit" variant="primary" disabled={adding}>
                Add
              </Button>
            </div>
          )}
        </Field>
        <FormError message={form.errors.form} />
      </form>
      <div class="lanes" ref={root}>
        {BOARD_LANES.map((lane) => {
          const inLane = items.filter((i) => i.lane === lane);
          return (
            <section class="lane" data-lane={lane} key={lane} aria-labelledby={`lane-${lane}`}>
              <h3 id={`lane-${lane}`}>
                {LANE_NAMES[lane]} <span class="lane-count">{inLane.length}</span>
              </h3>
              {inLane.length ? (
                <ul class="lane-items">
                  {inLane.map((i) => (
                    <BoardCard
                      key={i.id}
                      item={i}
                      instances={instances}
                      editing={editing === i.id}
                      onEdit={(open, saved) => {
                        // the editor takes the focus; closed, it goes back to the card's Edit button
                        if (!open) focusNext.current = { id: i.id, control: 'edit' };
                        setEditing(open ? i.id : null);
                        if (saved) void reload();
                      }}
                      onMove={move}
                      onDelete={(item) => void remove(item)}
                    />
                  ))}
                </ul>
              ) : (
                <p class="lane-empty muted">Nothing here.</p>
              )}
            </section>
          );
        })}
      </div>
    </Card>
  );
}
