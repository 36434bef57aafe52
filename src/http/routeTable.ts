// A path trie: static segments win over parameters (`/workspaces/active` before
// `/workspaces/:key`), with backtracking so `/a/:x/b` and `/a/static/c` can coexist.
// Segments are matched raw and decoded afterwards, so an encoded "/" (%2F) inside a tag
// or label stays inside its parameter.

interface Node<T> {
  statics: Map<string, Node<T>>;
  param?: { name: string; node: Node<T> };
  /** Per method, the route and its name in metrics and logs (`METHOD /pattern`, one string per route). */
  methods: Map<string, { value: T; label: string }>;
  pattern?: string;
  /** The pattern's parameter names, in order (worked out once, not per request). */
  paramNames?: string[];
}

export type Match<T> =
  | { kind: 'found'; value: T; params: Record<string, string>; pattern: string; label: string }
  | { kind: 'methodNotAllowed'; allowed: string[]; pattern: string; values: T[] }
  | { kind: 'notFound' };

const newNode = <T>(): Node<T> => ({ statics: new Map(), methods: new Map() });

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '/' || trimmed === '' ? [] : trimmed.slice(1).split('/');
}

/** Paths kept matched per method (RouteTable.match); past this many, that method's kept ones are dropped. */
const KEPT_MATCHES = 4096;

export class RouteTable<T> {
  private readonly root: Node<T> = newNode();
  /**
   * The routes found lately, per method and raw path: an on-sale asks for the same few paths
   * (one event's book, hold and release) thousands of times a second, and a match kept is
   * one Map look-up instead of splitting, walking and decoding. Their params are frozen:
   * every request of that path shares them.
   */
  private readonly found = new Map<string, Map<string, Match<T>>>();

  add(method: string, pattern: string, value: T): void {
    this.found.clear();
    let node = this.root;
    for (const segment of splitPath(pattern)) {
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (node.param && node.param.name !== name) {
          throw new Error(`route ${pattern}: parameter :${name} conflicts with :${node.param.name}`);
        }
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode()));
        node = next;
      }
    }
    if (node.methods.has(method)) throw new Error(`route ${method} ${pattern} registered twice`);
    node.methods.set(method, { value, label: `${method} ${pattern}` });
    node.pattern = pattern;
    node.paramNames = paramNames(pattern);
  }

  match(method: string, path: string): Match<T> {
    const kept = this.found.get(method)?.get(path);
    if (kept) return kept;
    const match = this.walkTo(method, path);
    if (match.kind === 'found') {
      Object.freeze(match.params);
      let byPath = this.found.get(method);
      if (!byPath) this.found.set(method, (byPath = new Map()));
      else if (byPath.size >= KEPT_MATCHES) byPath.clear();
      byPath.set(path, match);
    }
    return match;
  }

  private walkTo(method: string, path: string): Match<T> {
    const segments = splitPath(path);
    const values: string[] = [];
    let methodMismatch: Node<T> | undefined;

    const walk = (node: Node<T>, index: number): Node<T> | undefined => {
      if (index === segments.length) {
        if (node.methods.size === 0) return undefined;
        if (node.methods.has(method)) return node;
        methodMismatch ??= node;
        return undefined;
      }
      const segment = segments[index]!;
      const child = node.statics.get(segment);
      if (child) {
        const found = walk(child, index + 1);
        if (found) return found;
      }
      if (node.param && segment !== '') {
        values.push(segment);
        const found = walk(node.param.node, index + 1);
        if (found) return found;
        values.pop();
      }
      return undefined;
    };

    const node = walk(this.root, 0);
    if (node) {
      const params: Record<string, string> = {};
      const names = node.paramNames!;
      for (let i = 0; i < names.length; i++) params[names[i]!] = safeDecode(values[i]!);
      const { value, label } = node.methods.get(method)!;
      return { kind: 'found', value, params, pattern: node.pattern!, label };
    }
    if (methodMismatch) {
      const mismatch: Node<T> = methodMismatch;
      return { kind: 'methodNotAllowed', allowed: [...mismatch.methods.keys()], pattern: mismatch.pattern!, values: [...mismatch.methods.values()].map((route) => route.value) };
    }
    return { kind: 'notFound' };
  }
}

function paramNames(pattern: string): string[] {
  return splitPath(pattern)
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The table of every route, by method and path; a path registered twice for one method throws. */
export function routeTableOf<T extends { method: string; path: string }>(routes: T[]): RouteTable<T> {
  const table = new RouteTable<T>();
  for (const route of routes) table.add(route.method, route.path, route);
  return table;
}
