// A small disk under one folder, simulated at the file-system boundary of a ledgerbook process (node --import):
// files under LB_TEST_DISK_DIR may hold LB_TEST_DISK_BYTES bytes in all; a write beyond that fails as the kernel
// fails it on a full disk (ENOSPC, after writing what fits), and statfs there reports the space left. Nothing of
// ledgerbook's own is touched: only node:fs, as a full disk would answer it. Unprivileged tests cannot mount a
// small file system; this is the disk such a mount would be.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join, resolve, sep } from 'node:path';

const root = resolve(process.env.LB_TEST_DISK_DIR ?? '');
const capacity = Number(process.env.LB_TEST_DISK_BYTES ?? 'NaN');
if (!process.env.LB_TEST_DISK_DIR || !Number.isSafeInteger(capacity))
  throw new Error('full-disk.mjs needs LB_TEST_DISK_DIR and LB_TEST_DISK_BYTES');

const inside = (path) => {
  const full = resolve(String(path));
  return full === root || full.startsWith(root + sep);
};

/** bytes the files under the folder hold now */
function used(dir = root) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += used(path);
    else if (entry.isFile()) total += fs.statSync(path).size;
  }
  return total;
}

const full = (syscall, path) =>
  Object.assign(new Error(`ENOSPC: no space left on device, ${syscall} '${path}'`), {
    code: 'ENOSPC',
    errno: -28,
    syscall,
    path,
  });

/** how many of `length` bytes fit (a full disk writes what fits, then refuses the rest) */
const room = (length) => Math.max(0, Math.min(length, capacity - used()));

const paths = new WeakMap();
const promises = fs.promises;
const open = promises.open;
let patched = false;
promises.open = async function (path, ...rest) {
  const handle = await open.call(this, path, ...rest);
  paths.set(handle, String(path));
  if (!patched) {
    patched = true;
    const proto = Object.getPrototypeOf(handle);
    const write = proto.write;
    proto.write = async function (data, offset, length, ...more) {
      const path = paths.get(this);
      if (path === undefined || !inside(path) || typeof data === 'string')
        return write.call(this, data, offset, length, ...more);
      const from = offset ?? 0;
      const wanted = length ?? data.length - from;
      const fits = room(wanted);
      if (fits === 0 && wanted > 0) throw full('write', path);
      return write.call(this, data, from, fits, ...more);
    };
    const writeFile = proto.writeFile;
    proto.writeFile = async function (data, ...more) {
      const path = paths.get(this);
      if (path !== undefined && inside(path) && Buffer.byteLength(data) > room(Buffer.byteLength(data)))
        throw full('write', path);
      return writeFile.call(this, data, ...more);
    };
  }
  return handle;
};

const writeFile = promises.writeFile;
promises.writeFile = async function (path, data, ...rest) {
  if (inside(path) && Buffer.byteLength(data) > room(Buffer.byteLength(data)))
    throw full('write', String(path));
  return writeFile.call(this, path, data, ...rest);
};

const statfsSync = fs.statfsSync;
fs.statfsSync = function (path, ...rest) {
  const stats = statfsSync.call(this, path, ...rest);
  if (!inside(path)) return stats;
  const left = Math.max(0, capacity - used());
  return Object.assign(Object.create(Object.getPrototypeOf(stats)), stats, {
    bavail: Math.floor(left / stats.bsize),
    bfree: Math.floor(left / stats.bsize),
  });
};

syncBuiltinESMExports();
