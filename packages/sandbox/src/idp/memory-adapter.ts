/**
 * Storage for oidc-provider's stateful models, in memory with expiry. The sandbox's access tokens are
 * self-contained JWTs that are never stored, so this holds little; it exists because oidc-provider's own
 * development adapter announces itself on the console.
 */
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  /** epoch ms; Infinity when the model has no expiry */
  expiresAt: number;
}

export function memoryAdapterFactory(now: () => number = Date.now): AdapterFactory {
  const entries = new Map<string, Entry>();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry !== undefined && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  const findBy = (model: string, field: 'uid' | 'userCode', value: string): AdapterPayload | undefined => {
    for (const key of entries.keys()) {
      if (!key.startsWith(`${model}:`)) continue;
      const payload = live(key)?.payload;
      if (payload?.[field] === value) return payload;
    }
    return undefined;
  };

  return (model: string): Adapter => ({
    upsert(id, payload, expiresIn) {
      const expiresAt = expiresIn === undefined ? Infinity : now() + expiresIn * 1000;
      entries.set(`${model}:${id}`, { payload, expiresAt });
      return Promise.resolve();
    },
    find(id) {
      return Promise.resolve(live(`${model}:${id}`)?.payload);
    },
    findByUid(uid) {
      return Promise.resolve(findBy(model, 'uid', uid));
    },
    findByUserCode(userCode) {
      return Promise.resolve(findBy(model, 'userCode', userCode));
    },
    consume(id) {
      const entry = live(`${model}:${id}`);
      if (entry !== undefined) entry.payload.consumed = Math.floor(now() / 1000);
      return Promise.resolve();
    },
    destroy(id) {
      entries.delete(`${model}:${id}`);
      return Promise.resolve();
    },
    revokeByGrantId(grantId) {
      for (const [key, entry] of entries) {
        if (entry.payload.grantId === grantId) entries.delete(key);
      }
      return Promise.resolve();
    },
  });
}
