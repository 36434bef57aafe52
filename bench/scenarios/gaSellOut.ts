import { generatedRequests, measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// GA sell-out: requests for 1 to 4 places of one standing area until it is sold out and
// well beyond. The places the 2xx answers add up to, and the area's booked places in the
// final state, must both equal the capacity and never pass it.

export const GA_LABEL = 'GA1';
export const GA_CAPACITY = 10_000;

export async function gaSellOut(ctx: BenchContext): Promise<Figures> {
  const [event] = await ctx.newEvents(ctx.charts.seats10kWithGa, 1);
  let next = 0;
  let placesSold = 0;
  const figures = await measure(ctx.settings, {
    url: ctx.serverUrl,
    // Requests for 2.5 places on average: the area is sold out after about 4,000 of them.
    amount: Math.ceil((GA_CAPACITY / 2.5) * 2),
    requests: generatedRequests({
      headers: ctx.workspaceHeaders,
      next: () => {
        const quantity = (next++ % 4) + 1;
        return { path: `/events/${event!.key}/actions/book`, body: JSON.stringify({ objects: [{ objectId: GA_LABEL, quantity }] }), data: quantity };
      },
      onStatus: (status, quantity) => {
        if (status < 300) placesSold += quantity;
      },
    }),
  });
  const area = await ctx.state.area(event!, GA_LABEL);
  return {
    ...figures,
    capacity: GA_CAPACITY,
    placesSold,
    placesBookedInState: area.nonFree,
    oversold: Math.max(0, placesSold - GA_CAPACITY, area.nonFree - GA_CAPACITY),
    // Told sold but not booked in the final state.
    lostPlaces: Math.max(0, placesSold - area.nonFree),
  };
}
