/**
 * Route templates such as `/workflows/{instance_name}/cancel`. A route matches one method; the template is what
 * the sandbox counts requests by (admin API `GET /requests`) and what faults match on.
 */
export interface Match<R> {
  route: R;
  params: Record<string, string>;
}

interface Entry<R> {
  method: string;
  template: string;
  segments: string[];
  route: R;
}

export class Router<R extends { method: string; template: string }> {
  private readonly entries: Entry<R>[] = [];

  add(route: R): this {
    this.entries.push({
      method: route.method,
      template: route.template,
      segments: split(route.template),
      route,
    });
    return this;
  }

  match(method: string, path: string): Match<R> | undefined {
    const segments = split(path);
    for (const entry of this.entries) {
      if (entry.method !== method) continue;
      const params = matchSegments(entry.segments, segments);
      if (params !== undefined) return { route: entry.route, params };
    }
    return undefined;
  }

  /** whether some route serves this path with another method */
  hasPath(path: string): boolean {
    const segments = split(path);
    return this.entries.some((entry) => matchSegments(entry.segments, segments) !== undefined);
  }

  routes(): R[] {
    return this.entries.map((e) => e.route);
  }
}

function split(path: string): string[] {
  return path.split('/').slice(1);
}

function matchSegments(template: string[], path: string[]): Record<string, string> | undefined {
  if (template.length !== path.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i] ?? '';
    const p = path[i] ?? '';
    if (t.startsWith('{') && t.endsWith('}')) {
      if (p === '') return undefined;
      let value: string;
      try {
        value = decodeURIComponent(p);
      } catch {
        // a malformed %-escape never matches a parameter (actix answers 404 for such paths)
        return undefined;
      }
      params[t.slice(1, -1)] = value;
    } else if (t !== p) {
      return undefined;
    }
  }
  return params;
}
