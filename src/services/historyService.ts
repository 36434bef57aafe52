import { notBookableReason } from '../domain/eventObjectRules.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import { historyOrder, statusChangeItem } from '../domain/statusChangeHistory.js';
import type { StatusChangeHistory } from '../metadata/statusChangeHistory.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { EventCatalog } from './eventCatalog.js';

// The status-change history of an event or of one of its objects (docs/history.md), as
// stored by the drain, with each change's object looked up on the event's chart as it is now.

export interface HistoryQuery {
  page: PageRequest;
  /** `sort` as the query gives it. */
  sort?: string;
  /** Only labels containing this. */
  filter?: string;
}

export class HistoryService {
  constructor(
    private readonly catalog: EventCatalog,
    private readonly history: StatusChangeHistory,
  ) {}

  async list(workspace: WorkspaceDoc, eventKey: string, query: HistoryQuery, label?: string): Promise<Page<Record<string, unknown>>> {
    const order = historyOrder(query.sort);
    const { event, index } = await this.catalog.get(workspace, eventKey);
    const page = await this.history.page(event._id, query.page, order, { label, filter: query.filter });
    return {
      ...page,
      items: page.items.map((record) => statusChangeItem(record, notBookableReason(event, index, record.label))),
    };
  }
}
