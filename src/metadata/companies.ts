import type { Collection, Db } from 'mongodb';
import { defaultCompanySettings, type SettingChange } from '../domain/companySettings.js';
import { newKey } from '../domain/keys.js';
import type { CompanyDoc } from '../domain/tenant.js';
import { insertWithNewId } from './counters.js';

export class Companies {
  private readonly collection: Collection<CompanyDoc>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<CompanyDoc>('companies');
  }

  /** A company without a workspace yet (defaultWorkspaceId 0): see createCompany. */
  create(name: string): Promise<CompanyDoc> {
    return insertWithNewId(this.db, 'companies', async (id) => {
      const doc: CompanyDoc = {
        _id: id,
        name,
        adminKey: newKey(),
        designerKey: newKey(),
        defaultWorkspaceId: 0,
        settings: defaultCompanySettings(),
        createdOn: new Date(),
      };
      await this.collection.insertOne(doc);
      return doc;
    });
  }

  findById(id: number): Promise<CompanyDoc | null> {
    return this.collection.findOne({ _id: id });
  }

  findByAdminKey(adminKey: string): Promise<CompanyDoc | null> {
    return this.collection.findOne({ adminKey });
  }

  /** The oldest company: the one the dev server prints keys of. */
  findFirst(): Promise<CompanyDoc | null> {
    return this.collection.find({}).sort({ _id: 1 }).limit(1).next();
  }

  /**
   * Points the company at another default workspace, only while the default is still
   * `expected` when given; returns the default it replaced.
   */
  async setDefaultWorkspace(id: number, workspaceId: number, expected?: number): Promise<number | undefined> {
    const filter = expected === undefined ? { _id: id } : { _id: id, defaultWorkspaceId: expected };
    const before = await this.collection.findOneAndUpdate(filter, { $set: { defaultWorkspaceId: workspaceId } }, { returnDocument: 'before' });
    return before?.defaultWorkspaceId;
  }

  /** Gives the company a new admin or designer key; the old one stops working. */
  async replaceKey(id: number, which: 'adminKey' | 'designerKey'): Promise<string> {
    const key = newKey();
    await this.collection.updateOne({ _id: id }, { $set: { [which]: key } });
    return key;
  }

  /** Replaces the account's password hash. */
  async savePasswordHash(id: number, passwordHash: string): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { passwordHash } });
  }

  async saveSetting(id: number, change: SettingChange): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { [`settings.${change.path}`]: change.value } });
  }
}
