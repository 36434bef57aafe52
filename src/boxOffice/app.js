// The box-office page (README, "Box office"): plain browser JavaScript, served as it is.
// It calls the API with the workspace secret key typed in (kept by this browser tab
// until it closes), draws the event from GET /events/{key}/layout, and colours it from the live
// status stream (docs/status-stream.md) in its compact format, which names objects by their
// place in that layout and which it resumes with `since` after a drop. A module: it imports the
// server's own decoder of the compact format (/box-office/compactFrames.js).
import { CONFLATED, FrameDecoder, SNAPSHOT, SNAPSHOT_RESET } from '/box-office/compactFrames.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const STATUS_COLORS = { booked: '#5b5b5b', reservedByToken: '#f29f05', resale: '#3b82f6' };
const NOT_FOR_SALE_COLOR = '#d0d0d0';
const OTHER_STATUS_COLOR = '#8e44ad';
const RADIUS = { seat: 6, table: 14, booth: 8, generalAdmission: 22 };

const state = {
  key: sessionStorage.getItem('boxOfficeKey') || '',
  eventKey: null,
  layout: null,
  /** label -> the stream's object ({status, booked?, held?}); absent: free. */
  view: new Map(),
  seq: undefined,
  socket: null,
  selected: new Set(),
  /** The hold token this page holds with, made on its first hold. */
  holdToken: null,
  elements: new Map(),
};

async function api(method, path, body) {
  const headers = { authorization: 'Basic ' + btoa(state.key + ':') };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const json = text ? JSON.parse(text) : undefined;
  // The API's own words for what went wrong (its error body's `messages`).
  if (!response.ok) throw new Error(json && json.messages ? json.messages.join('; ') : `HTTP ${response.status}`);
  return json;
}

function showError(error) {
  $('error').textContent = error ? error.message : '';
}

async function run(action) {
  showError(null);
  try {
    await action();
  } catch (error) {
    showError(error);
  }
}

$('key').value = state.key;
$('key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  state.key = $('key').value.trim();
  sessionStorage.setItem('boxOfficeKey', state.key);
  void run(loadEvents);
});
$('event').addEventListener('change', () => void run(() => openEvent($('event').value)));

async function loadEvents() {
  const events = await api('GET', '/events?limit=100');
  const seasons = await api('GET', '/seasons?limit=100').catch(() => ({ items: [] }));
  const select = $('event');
  select.replaceChildren(new Option('Choose…', ''));
  for (const event of events.items) select.add(new Option(event.name ? `${event.key} (${event.name})` : event.key, event.key));
  for (const season of seasons.items || []) if (!events.items.some((e) => e.key === season.key)) select.add(new Option(`${season.key} (season)`, season.key));
  $('event-form').hidden = false;
}

async function openEvent(eventKey) {
  if (state.socket) {
    state.socket.onclose = null;
    state.socket.close();
  }
  state.eventKey = eventKey || null;
  state.selected.clear();
  state.view = new Map();
  state.seq = undefined;
  $('main').hidden = !eventKey;
  if (!eventKey) return;
  state.layout = await api('GET', `/events/${encodeURIComponent(eventKey)}/layout`);
  draw();
  connect();
}

function statusOf(label) {
  const object = state.view.get(label);
  return object ? object.status : 'free';
}

/** Free, but with no place for sale (a seat off sale, or a GA area with all its free places off sale). */
function closedForSale(label) {
  const object = state.view.get(label);
  if (!object || !object.notForSale || object.status !== 'free') return false;
  const capacity = state.elements.get(label)?.object.capacity;
  return !capacity || object.notForSale + (object.booked || 0) + (object.held || 0) >= capacity;
}

function draw() {
  const { bounds, objects } = state.layout;
  const svg = $('chart');
  const pad = 30;
  svg.setAttribute('viewBox', `${bounds.minX - pad} ${bounds.minY - pad} ${bounds.maxX - bounds.minX + 2 * pad} ${bounds.maxY - bounds.minY + 2 * pad}`);
  svg.replaceChildren();
  state.elements.clear();
  // Tables and areas first, so the seats at them stay clickable.
  const order = (o) => (o.objectType === 'seat' ? 1 : 0);
  for (const object of [...objects].sort((a, b) => order(a) - order(b))) {
    const g = document.createElementNS(SVG, 'g');
    g.setAttribute('class', 'obj');
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    g.dataset.label = object.label;
    const shape = document.createElementNS(SVG, object.objectType === 'booth' ? 'rect' : 'circle');
    const r = RADIUS[object.objectType] || 6;
    if (object.objectType === 'booth') {
      shape.setAttribute('x', object.x - r);
      shape.setAttribute('y', object.y - r);
      shape.setAttribute('width', 2 * r);
      shape.setAttribute('height', 2 * r);
    } else {
      shape.setAttribute('cx', object.x);
      shape.setAttribute('cy', object.y);
      shape.setAttribute('r', r);
    }
    g.appendChild(shape);
    g.addEventListener('click', () => toggle(object.label));
    g.addEventListener('keydown', (e) => {
      if (e.key === ' ' || e.key === 'Enter') {
        e.preventDefault();
        toggle(object.label);
      }
    });
    svg.appendChild(g);
    state.elements.set(object.label, { g, shape, object });
    paint(object.label);
  }
  tally();
}

/** Colours one object by its status (its category's colour while free) and names it for screen readers. */
function paint(label) {
  const element = state.elements.get(label);
  if (!element) return;
  const status = statusOf(label);
  const object = state.view.get(label);
  const closed = closedForSale(label);
  const color = closed ? NOT_FOR_SALE_COLOR : status === 'free' ? element.object.color || '#9ccc65' : STATUS_COLORS[status] || OTHER_STATUS_COLOR;
  element.shape.setAttribute('fill', color);
  element.g.dataset.status = status;
  element.g.dataset.forSale = String(!(object && object.notForSale));
  element.g.classList.toggle('selected', state.selected.has(label));
  const places = object && object.booked !== undefined ? `, ${object.booked} booked, ${object.held} held of ${element.object.capacity}` : '';
  const offSale = object && object.notForSale ? (object.booked !== undefined ? `, ${object.notForSale} not for sale` : ', not for sale') : '';
  element.g.setAttribute('aria-label', `${label}: ${status}${places}${offSale}${state.selected.has(label) ? ', selected' : ''}`);
  element.g.setAttribute('aria-pressed', String(state.selected.has(label)));
}

function toggle(label) {
  if (state.selected.has(label)) state.selected.delete(label);
  else state.selected.add(label);
  paint(label);
  showSelection();
}

function showSelection() {
  $('selected-count').textContent = String(state.selected.size);
  $('selected').textContent = [...state.selected].join(', ');
}

function clearSelection() {
  const labels = [...state.selected];
  state.selected.clear();
  for (const label of labels) paint(label);
  showSelection();
}

function tally() {
  const byStatus = new Map();
  const byCategory = new Map();
  for (const { label, categoryLabel } of state.layout.objects) {
    const status = closedForSale(label) ? 'not for sale' : statusOf(label);
    byStatus.set(status, (byStatus.get(status) || 0) + 1);
    const name = categoryLabel || 'none';
    const counts = byCategory.get(name) || { free: 0, total: 0 };
    counts.total++;
    if (status === 'free') counts.free++;
    byCategory.set(name, counts);
  }
  const rows = (table, header, entries) => {
    table.replaceChildren();
    table.insertRow().innerHTML = header;
    for (const cells of entries) {
      const row = table.insertRow();
      for (const cell of cells) row.insertCell().textContent = String(cell);
    }
  };
  rows($('by-status'), '<th>status</th><th>objects</th>', [...byStatus].sort());
  rows($('by-category'), '<th>category</th><th>free</th><th>total</th>', [...byCategory].map(([name, c]) => [name, c.free, c.total]));
}

/** The status stream: a snapshot, then changes; after a drop, again with `since`. */
function connect() {
  const eventKey = state.eventKey;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const since = state.seq === undefined ? '' : `&since=${state.seq}`;
  const socket = new WebSocket(`${scheme}://${location.host}/events/${encodeURIComponent(eventKey)}/status-stream?format=compact&publicKey=${encodeURIComponent(state.layout.publicKey)}${since}`);
  socket.binaryType = 'arraybuffer';
  state.socket = socket;
  // Each subscription numbers its statuses anew.
  const decoder = new FrameDecoder();
  const labelAt = (position) => state.layout.objects[position].label;
  socket.onmessage = ({ data }) => {
    const frame = decoder.decode(new Uint8Array(data));
    if (frame.kind === SNAPSHOT || frame.kind === SNAPSHOT_RESET) {
      // Another order of the objects (the chart was published anew): the page opens the event again.
      if (frame.layoutVersion !== state.layout.layoutVersion) return void run(() => openEvent(eventKey));
      const before = [...state.view.keys()];
      state.view = new Map(frame.entries.map(({ position, ...object }) => [labelAt(position), object]));
      for (const label of new Set([...before, ...state.view.keys()])) paint(label);
    } else {
      // docs/status-stream.md, "Messages": a status change keeps the object's places off
      // sale, a for-sale change (no status) sets only those; a conflated change is the
      // object's whole state.
      for (const { position, quantity, ...fields } of frame.entries) {
        const label = labelAt(position);
        const before = state.view.get(label);
        const object =
          frame.kind === CONFLATED ? fields : fields.status !== undefined ? { ...fields, notForSale: before && before.notForSale } : { ...(before || { status: 'free' }), notForSale: fields.notForSale };
        if (!object.notForSale) delete object.notForSale;
        if (object.status === 'free' && !(object.booked || object.held || object.notForSale)) state.view.delete(label);
        else state.view.set(label, object);
        paint(label);
      }
      $('live').textContent = `${frame.entries.length} change(s) received`;
    }
    state.seq = frame.to;
    // Where the page stands in the stream, for whoever watches it (the browser test).
    document.body.dataset.seq = String(frame.to);
    tally();
  };
  socket.onclose = () => {
    if (state.socket === socket && state.eventKey === eventKey) setTimeout(connect, 1000);
  };
}

async function act(action) {
  const objects = [...state.selected];
  if (objects.length === 0) throw new Error('Select one or more objects first');
  const path = `/events/${encodeURIComponent(state.eventKey)}/actions/${action}`;
  if (action === 'hold') {
    state.holdToken = state.holdToken || (await api('POST', '/hold-tokens', {})).holdToken;
    await api('POST', path, { objects, holdToken: state.holdToken });
  } else {
    // Objects this page holds are booked or released with its token.
    const held = state.holdToken && objects.some((label) => statusOf(label) === 'reservedByToken');
    await api('POST', path, held ? { objects, holdToken: state.holdToken } : { objects });
  }
  clearSelection();
}

for (const action of ['book', 'hold', 'release']) $(action).addEventListener('click', () => void run(() => act(action)));
$('clear').addEventListener('click', clearSelection);

if (state.key) void run(loadEvents);
