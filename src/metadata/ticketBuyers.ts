import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import type { Page, PageRequest } from '../domain/pagination.js';
import { isDuplicateId, isDuplicateKey, nextId } from './counters.js';
import { paginate } from './paginate.js';

// The ticket buyer ids of each workspace (docs/seatsio-behaviour.md, "Ticket buyers"). One
// document per id; a unique index on (workspace, id) is what makes an id present once,
// whichever of two concurrent calls adding it gets there first. The integer `_id` orders
// the list (newest first) and is its page cursor, as in every other list.

export interface TicketBuyerDoc {
  _id: number;
  workspaceId: number;
  buyerId: string;
}

const SEQUENCE = 'ticketBuyers';
/** Rounds of fresh `_id`s when the in-memory wire server handed one out twice (see insertWithNewId). */
const MAX_ID_ROUNDS = 20;

export class TicketBuyers {
  private readonly collection: Collection<TicketBuyerDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<TicketBuyerDoc>('ticketBuyers');
  }

  /** Adds the ids not yet in the workspace; `ids` without repeats. */
  async add(workspaceId: number, ids: string[]): Promise<{ added: string[]; alreadyPresent: string[] }> {
    const present = await this.presentOf(workspaceId, ids);
    const added = new Set<string>();
    let pending = ids.filter((id) => !present.has(id));
    for (let round = 1; pending.length > 0; round++) {
      const last = await nextId(this.db, SEQUENCE, pending.length);
      const outcomes = await this.insertAll(pending.map((buyerId, i) => ({ _id: last - pending.length + 1 + i, workspaceId, buyerId })));
      const again: string[] = [];
      pending.forEach((buyerId, i) => {
        const outcome = outcomes[i]!;
        if (outcome === 'added') added.add(buyerId);
        else if (outcome === 'present') present.add(buyerId);
        else if (round < MAX_ID_ROUNDS) again.push(buyerId);
        else throw new Error(`no free id for ticket buyer ${buyerId} after ${round} rounds`);
      });
      pending = again;
    }
    return { added: ids.filter((id) => added.has(id)), alreadyPresent: ids.filter((id) => present.has(id)) };
  }

  /** Removes the ids the workspace has; `ids` without repeats. */
  async remove(workspaceId: number, ids: string[]): Promise<{ removed: string[]; notPresent: string[] }> {
    if (ids.length === 0) return { removed: [], notPresent: [] };
    const docs = await this.collection.find({ workspaceId, buyerId: { $in: ids } }, { projection: { _id: 1, buyerId: 1 } }).toArray();
    // One delete per document, so that of two concurrent calls removing an id only the one
    // whose delete took it says it removed it.
    const taken = await Promise.all(docs.map(async (doc) => ((await this.collection.deleteOne({ _id: doc._id })).deletedCount === 1 ? doc.buyerId : undefined)));
    const removed = new Set(taken.filter((id) => id !== undefined));
    return { removed: ids.filter((id) => removed.has(id)), notPresent: ids.filter((id) => !removed.has(id)) };
  }

  /** A page of the workspace's ids, newest first. */
  async page(workspaceId: number, request: PageRequest): Promise<Page<string>> {
    const page = await paginate(this.collection, { workspaceId }, request, (doc) => ({ id: doc._id, buyerId: doc.buyerId }));
    return { ...page, items: page.items.map((item) => item.buyerId) };
  }

  private async presentOf(workspaceId: number, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const docs = await this.collection.find({ workspaceId, buyerId: { $in: ids } }, { projection: { buyerId: 1 } }).toArray();
    return new Set(docs.map((doc) => doc.buyerId));
  }

  /**
   * Inserts the documents, all at once unless one is refused (an id another call added
   * meanwhile, or an `_id` handed out twice): then those not stored yet go one by one, so
   * the refused ones do not hold back the others. MongoDB stores the rest of an unordered
   * insertMany and the in-memory wire server none of it, so what it stored is read back.
   */
  private async insertAll(docs: TicketBuyerDoc[]): Promise<('added' | 'present' | 'idTaken')[]> {
    try {
      await this.collection.insertMany(docs, { ordered: false });
      return docs.map(() => 'added');
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError) && !isDuplicateKey(error)) throw error;
    }
    const stored = await this.collection.find({ _id: { $in: docs.map((doc) => doc._id) } }).toArray();
    const ours = new Set(stored.filter((doc) => doc.workspaceId === docs[0]!.workspaceId).map((doc) => `${doc._id}:${doc.buyerId}`));
    return Promise.all(docs.map((doc) => (ours.has(`${doc._id}:${doc.buyerId}`) ? 'added' : this.insert(doc))));
  }

  /** 'present' when the workspace has the id already (the unique index refused it), 'idTaken' when the `_id` was. */
  private async insert(doc: TicketBuyerDoc): Promise<'added' | 'present' | 'idTaken'> {
    try {
      await this.collection.insertOne(doc);
      return 'added';
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      return isDuplicateId(error) ? 'idTaken' : 'present';
    }
  }
}
