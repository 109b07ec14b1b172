/** GET /decentralized-parties (dpm-api.md §4): cache first, 60 s staleness, `refresh=true` reads live. */
import { json } from '../../http/reply.js';
import { nowSeconds } from '../../time.js';
import { CACHE_STALE_SECONDS, cachedParties, liveParties, refreshInBackground } from '../parties.js';
import { route, type DpmRoute } from './route.js';

export const partyRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/decentralized-parties',
    access: 'auth',
    handle: ({ node, q }) => {
      const prefix = (q.prefix as string | undefined) ?? '';
      const refresh = (q.refresh as boolean | undefined) ?? false;
      const cached = refresh ? undefined : cachedParties(node, prefix);
      if (cached !== undefined) {
        const updatedAt = Math.min(...cached.map((r) => r.updated_at));
        const stale = nowSeconds() - updatedAt > CACHE_STALE_SECONDS;
        if (stale) refreshInBackground(node, prefix, liveParties(node, prefix));
        const parties = cached.map((r) => {
          const party = structuredClone(r.party);
          party.my_owner_key ??= party.owners.find((o) => o === node.ownerKey(party.party_id));
          return party;
        });
        return json(200, { parties, source: 'cache', refreshing: stale && node.refreshing.has(prefix) });
      }
      const parties = liveParties(node, prefix);
      refreshInBackground(node, prefix, parties);
      return json(200, { parties, source: 'live', refreshing: false });
    },
  }),
];
