import type { Collection, Db, Filter } from 'mongodb';
import { newKey } from '../domain/keys.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import { insertWithNewId } from './counters.js';
import { setIfUnchanged } from './conditionalWrite.js';
import { containsFilter, paginate } from './paginate.js';

// src/services/eventReportService.ts still names the type from here; the type is src/domain/tenant.ts's.
export type { WorkspaceDoc } from '../domain/tenant.js';

export type ActiveFilter = 'all' | 'active' | 'inactive';

export class Workspaces {
  private readonly collection: Collection<WorkspaceDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<WorkspaceDoc>('workspaces');
  }

  create(fields: { companyId: number; name: string; isTest: boolean }): Promise<WorkspaceDoc> {
    return insertWithNewId(this.db, 'workspaces', async (id) => {
      const doc: WorkspaceDoc = {
        _id: id,
        companyId: fields.companyId,
        name: fields.name,
        key: newKey(),
        secretKeys: [newKey()],
        isTest: fields.isTest,
        isActive: true,
        createdOn: new Date(),
        version: 1,
      };
      await this.collection.insertOne(doc);
      return doc;
    });
  }

  findByKey(companyId: number, key: string): Promise<WorkspaceDoc | null> {
    return this.collection.findOne({ companyId, key });
  }

  /** Public keys are unique across companies (index in mongo.ts). */
  findByPublicKey(key: string): Promise<WorkspaceDoc | null> {
    return this.collection.findOne({ key });
  }

  findBySecretKey(secretKey: string): Promise<WorkspaceDoc | null> {
    return this.collection.findOne({ secretKeys: secretKey });
  }

  findByCompany(companyId: number): Promise<WorkspaceDoc[]> {
    return this.collection.find({ companyId }).toArray();
  }

  list<T extends { id: number }>(
    companyId: number,
    options: { filter?: string; active: ActiveFilter },
    request: PageRequest,
    toItem: (doc: WorkspaceDoc) => T,
  ): Promise<Page<T>> {
    const filter: Filter<WorkspaceDoc> = { companyId };
    if (options.active !== 'all') filter.isActive = options.active === 'active';
    if (options.filter) Object.assign(filter, containsFilter(options.filter, ['name', 'key']));
    return paginate(this.collection, filter, request, toItem);
  }

  findById(id: number): Promise<WorkspaceDoc | null> {
    return this.collection.findOne({ _id: id });
  }

  /** Writes `fields` only if nobody changed the workspace since `version` was read. */
  updateIfUnchanged(doc: WorkspaceDoc, fields: Partial<Pick<WorkspaceDoc, 'name' | 'isActive' | 'secretKeys'>>): Promise<boolean> {
    return setIfUnchanged<WorkspaceDoc>(this.collection, doc, fields);
  }

  async delete(id: number): Promise<void> {
    await this.collection.deleteOne({ _id: id });
  }
}
