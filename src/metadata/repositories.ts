import type { Db } from 'mongodb';
import { Charts } from './charts.js';
import type { CompanyDoc, WorkspaceDoc } from '../domain/tenant.js';
import { Companies } from './companies.js';
import { EventLog } from './eventLog.js';
import { Events } from './events.js';
import { StatusChangeHistory } from './statusChangeHistory.js';
import { TicketBuyers } from './ticketBuyers.js';
import { Workspaces } from './workspaces.js';

export interface Repositories {
  companies: Companies;
  workspaces: Workspaces;
  charts: Charts;
  events: Events;
  statusChanges: StatusChangeHistory;
  eventLog: EventLog;
  ticketBuyers: TicketBuyers;
}

export function repositories(db: Db): Repositories {
  return { companies: new Companies(db), workspaces: new Workspaces(db), charts: new Charts(db), events: new Events(db), statusChanges: new StatusChangeHistory(db), eventLog: new EventLog(db), ticketBuyers: new TicketBuyers(db) };
}

/** The name of a new company's first (default) workspace, as seats.io names it (docs/seatsio-behaviour.md, "Workspaces"). */
export const FIRST_WORKSPACE_NAME = 'Production workspace';

/**
 * A company always has a default workspace. Nobody knows the company's keys until this
 * returns, so the moment between its insert and pointing it at its workspace is unseen.
 */
export async function createCompany(repos: Repositories, name: string): Promise<{ company: CompanyDoc; workspace: WorkspaceDoc }> {
  const company = await repos.companies.create(name);
  const workspace = await repos.workspaces.create({ companyId: company._id, name: FIRST_WORKSPACE_NAME, isTest: false });
  await repos.companies.setDefaultWorkspace(company._id, workspace._id);
  return { company: { ...company, defaultWorkspaceId: workspace._id }, workspace };
}
