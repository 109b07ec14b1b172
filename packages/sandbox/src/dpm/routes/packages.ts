/** Packages and DAR parity (dpm-api.md §10) and the synchronous POST /dars/upload (§5.6). */
import { json, jsonError } from '../../http/reply.js';
import { MeshError, type PackageInfo } from '../../mesh.js';
import { DarUploadError, uploadDarFiles } from '../dars.js';
import type { DarFile } from '../workflows/configs.js';
import { PACKAGE_CONFIG } from './config.js';
import { route, type DpmRoute } from './route.js';
import { requestShape } from '../wire.js';

export const packageRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/packages/vetted',
    access: 'auth',
    handle: ({ node }) =>
      json(
        200,
        node.env.canton.vettedPackages(node.participantId).map((p) => ({
          package_id: p.packageId,
          package_name: p.name,
          package_version: p.version,
        })),
      ),
  }),
  route({
    method: 'GET',
    template: '/packages/compare-peers',
    access: 'auth',
    handle: async ({ node }) => {
      const local: PackageInfo[] = node.env.canton
        .uploadedPackages(node.participantId)
        .map((p) => ({ package_id: p.packageId, name: p.name, version: p.version }));
      const peers = await Promise.all(
        node.state.peers
          .filter((p) => p.participant_id !== node.participantId && p.public_key !== '')
          .map(async (peer) => {
            const base = { participant_id: peer.participant_id, name: peer.name };
            try {
              const reply = await node.send(peer.participant_id, { type: 'packages' });
              return { ...base, reachable: true, packages: reply.type === 'packages' ? reply.packages : [] };
            } catch (error) {
              if (!(error instanceof MeshError)) throw error;
              return { ...base, reachable: false, error_kind: error.kind, packages: [] };
            }
          }),
      );
      return json(200, { local_packages: local, peers });
    },
  }),
  route({
    method: 'GET',
    template: '/packages',
    access: 'auth',
    handle: () => json(200, PACKAGE_CONFIG),
  }),
  route<{ dar_files: DarFile[] }>({
    method: 'POST',
    template: '/dars/upload',
    access: 'admin',
    body: requestShape('POST /dars/upload'),
    handle: ({ node, body }) => {
      try {
        uploadDarFiles(node, body.dar_files);
      } catch (error) {
        if (error instanceof DarUploadError) return jsonError(500, `Failed to upload DARs: ${error.message}`);
        throw error;
      }
      return json(200, { success: true });
    },
  }),
];
