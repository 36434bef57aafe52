import { chooseBestAvailable, focalRanking, seatingLayout, type BestAvailableChoice } from '../domain/bestAvailable.js';
import { bestAvailableQuery, eventSelection, planBestAvailable, type BestAvailableInput, type BestAvailablePlan } from '../domain/bestAvailableRequest.js';
import { badRequest } from '../domain/errors.js';
import { refusedObjects, type ChangeOrigin } from '../inventory/statusChanges.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import type { ObjectInput, StatusParameters } from '../domain/statusChangeRequest.js';
import { eventInThePast } from '../domain/season.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { AvailabilityViews, Claim } from './availabilityViews.js';
import type { EventCatalog } from './eventCatalog.js';
import type { StatusChangeInput, StatusChangeService } from './statusChangeService.js';

// Best available on book, hold and change-object-status (docs/best-available.md): the
// choice is made from this process's view of the event and applied by the same status
// script as any booking, which checks every chosen object again. A refused choice closes
// what was refused and is made again from a view read since, at most MAX_ATTEMPTS times.

export interface BestAvailableRequest {
  eventKey: string;
  status: string;
  bestAvailable: BestAvailableInput;
  /** Categories given next to channelKeys rather than inside bestAvailable. */
  categories?: (string | number)[];
  parameters: StatusParameters;
}

export interface BestAvailableResult {
  objects: string[];
  /** The chosen objects' details, as the JSON text of an object keyed by label (StatusChangeService.applyAsJson). */
  objectDetailsJson: string;
  nextToEachOther?: boolean;
}

/** The answer to a best-available change, `{objects, objectDetails, nextToEachOther}`, as JSON text. */
export function bestAvailableJson(result: BestAvailableResult): string {
  const next = result.nextToEachOther === undefined ? '' : `,"nextToEachOther":${result.nextToEachOther}`;
  return `{"objects":${JSON.stringify(result.objects)},"objectDetails":${result.objectDetailsJson}${next}}`;
}

/** Choices made and refused by the script before the request gives up with the last refusal. */
const MAX_ATTEMPTS = 5;

export const bestAvailableNotFound = () => badRequest('BEST_AVAILABLE_OBJECTS_NOT_FOUND', 'Best available objects not found');

/** The objects to send for a choice: element i of extraData and ticketTypes with the i-th object. */
function inputsOf(index: ObjectIndex, plan: BestAvailablePlan, choice: BestAvailableChoice): ObjectInput[] {
  const labels = choice.positions.map((p) => index.objects[p]!.label);
  if (choice.kind === 'area') {
    // One area, all places: an area keeps one ticket type and one extra data, the first given.
    return [{ objectId: labels[0]!, quantity: plan.number, ticketType: plan.ticketTypes?.[0], extraData: plan.extraData?.[0] }];
  }
  return labels.map((objectId, i) => ({ objectId, ticketType: plan.ticketTypes?.[i], extraData: plan.extraData?.[i] }));
}

/** True when no parameter but the hold token is set (parametersOf gives every field, most undefined). */
function onlyHoldToken(parameters: StatusParameters): boolean {
  for (const name in parameters) if (name !== 'holdToken' && parameters[name as keyof StatusParameters] !== undefined) return false;
  return true;
}

export class BestAvailableService {
  constructor(
    private readonly catalog: EventCatalog,
    private readonly views: AvailabilityViews,
    private readonly statusChanges: StatusChangeService,
  ) {}

  async apply(workspace: WorkspaceDoc, request: BestAvailableRequest, origin: ChangeOrigin): Promise<BestAvailableResult> {
    const startedAt = Date.now();
    const loaded = await this.catalog.get(workspace, request.eventKey);
    const { event, index } = loaded;
    if (event.isInThePast) throw eventInThePast(event.key);
    const layout = seatingLayout(index);
    const selection = eventSelection(event, layout, loaded.season?.top ?? null);
    const plan = planBestAvailable(request.bestAvailable, request.categories, index, layout, selection);
    const ranking = focalRanking(layout, plan.focalKey, plan.focalPoint);
    const query = bestAvailableQuery(plan, layout, selection, request.parameters);
    let view = await this.views.current(loaded, selection);
    // Seats chosen with no parameter but a hold token go the plain way (applyChoice); GA areas never.
    const plain = plan.ticketTypes === undefined && plan.extraData === undefined && origin.type === 'API_CALL' && onlyHoldToken(request.parameters);

    for (let attempt = 1; ; attempt++) {
      let choice = chooseBestAvailable(layout, ranking, view, query);
      if (!choice) {
        // Before saying "not found", look at what Redis holds now: others may have freed seats.
        view = await this.views.fresh(loaded, selection, startedAt);
        choice = chooseBestAvailable(layout, ranking, view, query);
        if (!choice) throw bestAvailableNotFound();
      }
      // Claimed before any await, so the next request in this process chooses around it.
      const claim: Claim = { positions: choice.positions, step: choice.step, places: choice.kind === 'area' ? plan.number : 0 };
      this.views.claim(event._id, claim);
      const sentAt = Date.now();
      const input = { eventKey: request.eventKey, type: 'CHANGE_STATUS_TO' as const, status: request.status, objects: inputsOf(index, plan, choice), parameters: request.parameters };
      const labels = input.objects.map((o) => (o as { objectId: string }).objectId);
      try {
        const objectDetailsJson = await this.applyChoice(workspace, input, plain && choice.kind !== 'area' ? labels : undefined, origin);
        this.views.applied(event._id, claim);
        const result: BestAvailableResult = { objects: labels, objectDetailsJson };
        if (choice.nextToEachOther !== undefined) result.nextToEachOther = choice.nextToEachOther;
        return result;
      } catch (error) {
        const labels = refusedObjects(error);
        const refused = new Set((labels ?? []).map((label) => index.byLabel.get(label)?.position ?? -1));
        this.views.refused(event._id, claim, refused);
        if (!labels || attempt >= MAX_ATTEMPTS) throw error;
        // Someone else took objects this view showed open: choose again from a view read after
        // this choice was sent, or another process with the same view would collide again.
        view = await this.views.fresh(loaded, selection, sentAt, 0);
      }
    }
  }

  /**
   * Applies the chosen objects; their details as JSON text. A choice of seats, tables or
   * booths with no parameter but a hold token (`plainLabels`, their labels) takes the plain
   * way when the status service takes it (StatusChangeService.applyPlainAsJson), the general
   * one otherwise.
   */
  private applyChoice(workspace: WorkspaceDoc, input: StatusChangeInput, plainLabels: string[] | undefined, origin: ChangeOrigin): Promise<string> {
    if (plainLabels) {
      const applied = this.statusChanges.applyPlainAsJson(workspace, input.eventKey, input.status!, plainLabels, input.parameters.holdToken, origin.ip ?? '');
      if (applied) return applied;
    }
    return this.statusChanges.applyAsJson(workspace, input, origin);
  }
}
