// The board: a Kanban of work items across instances. Items are made by a user, from an instance's
// message (its text read through the instance's API), or by an agent through a connector.
import { randomBytes } from 'node:crypto';
import { notFound } from '../../core/errors.ts';
import type { BoardItem } from '../../protocol/dashboard.ts';
import { callInstance, type Target } from './instance-client.ts';
import type { BoardRepo } from './board.repo.ts';

export type ItemInput = Partial<Pick<BoardItem, 'detail' | 'lane' | 'instanceId' | 'sessionId' | 'messageId'>> & { title: string };

export class BoardService {
  constructor(
    private readonly repo: BoardRepo,
    private readonly target: (instanceId: string) => Target,
    private readonly onChange: (item: BoardItem, action: string) => void,
  ) {}

  list(): BoardItem[] {
    return this.repo.list();
  }

  get(id: string): BoardItem {
    const item = this.repo.get(id);
    if (!item) throw notFound('Board item', id);
    return item;
  }

  create(input: ItemInput, source: BoardItem['source'] = 'user'): BoardItem {
    if (input.instanceId) this.target(input.instanceId);
    const now = Date.now();
    const lane = input.lane ?? 'backlog';
    const item: BoardItem = {
      id: `item_${randomBytes(6).toString('hex')}`,
      title: input.title,
      detail: input.detail ?? '',
      lane,
      position: this.repo.endOf(lane),
      instanceId: input.instanceId ?? null,
      sessionId: input.sessionId ?? null,
      messageId: input.messageId ?? null,
      source,
      createdAt: now,
      updatedAt: now,
    };
    this.repo.save(item);
    this.onChange(item, 'created');
    return item;
  }

  update(id: string, patch: Partial<ItemInput> & { position?: number }): BoardItem {
    const current = this.get(id);
    if (patch.instanceId) this.target(patch.instanceId);
    // a move to another lane without a position goes to its end
    const position = patch.position ?? (patch.lane && patch.lane !== current.lane ? this.repo.endOf(patch.lane) : current.position);
    const item = { ...current, ...patch, position, updatedAt: Date.now() };
    this.repo.save(item);
    this.onChange(item, patch.lane && patch.lane !== current.lane ? 'moved' : 'updated');
    return item;
  }

  remove(id: string): void {
    const item = this.get(id);
    this.repo.remove(id);
    this.onChange(item, 'deleted');
  }

  /** An item from an instance's message: its first line is the title, the whole text the detail. */
  async fromMessage(input: { instanceId: string; messageId: number; sessionId?: string; lane?: BoardItem['lane']; title?: string }): Promise<BoardItem> {
    const target = this.target(input.instanceId);
    const query = new URLSearchParams({ after: String(input.messageId - 1), limit: '1', ...(input.sessionId ? { sessionId: input.sessionId } : {}) });
    const page = await callInstance<{ sessionId: string; messages: { id: number; content: string }[] }>(target, `/api/messages?${query}`);
    const message = page.messages.find((m) => m.id === input.messageId);
    if (!message) throw notFound(`Message of instance ${input.instanceId}`, input.messageId);
    const firstLine = message.content.split('\n').find((l) => l.trim())?.trim() ?? `Message ${message.id}`;
    return this.create(
      {
        title: input.title ?? firstLine.slice(0, 200),
        detail: message.content.slice(0, 20_000),
        lane: input.lane,
        instanceId: input.instanceId,
        sessionId: page.sessionId,
        messageId: message.id,
      },
      'message',
    );
  }
}
