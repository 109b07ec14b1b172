/**
 * Uploading DARs to this node's participant (Canton Admin `UploadDar` with vet_all_packages), as POST /dars/upload
 * does at once and the Dars workflow does on each peer at UploadDars and on the coordinator at Complete.
 */
import { CantonError } from '../canton.js';
import type { DpmNode } from './node.js';
import type { DarFile } from './workflows/configs.js';

export class DarUploadError extends Error {}

/** Uploads each file in order; a `vet-fails` fault makes the participant store the packages without vetting. */
export function uploadDarFiles(node: DpmNode, files: readonly DarFile[]): void {
  const vet = !node.env.faults.vetFails(node.name);
  for (const file of files) {
    const decoded = decodeBase64(file.data);
    if (typeof decoded === 'string') {
      throw new DarUploadError(`Failed to decode base64 DAR data for ${file.filename}: ${decoded}`);
    }
    try {
      node.env.canton.uploadDar(node.participantId, decoded, file.filename, vet);
    } catch (error) {
      if (error instanceof CantonError) throw new DarUploadError(error.message);
      throw error;
    }
  }
}

/** Standard base64 with padding, strict like Rust's base64 STANDARD engine; a string is the error text. */
function decodeBase64(data: string): Uint8Array | string {
  const padding = /=*$/.exec(data)?.[0].length ?? 0;
  const body = data.slice(0, data.length - padding);
  for (let i = 0; i < body.length; i++) {
    if (!/[A-Za-z0-9+/]/.test(body[i] ?? '')) return `Invalid symbol ${body.charCodeAt(i)}, offset ${i}.`;
  }
  if (body.length % 4 === 1) return 'Invalid input length.';
  if (padding > 2 || (padding > 0 && data.length % 4 !== 0) || (padding === 0 && body.length % 4 !== 0)) {
    return 'Invalid padding';
  }
  return Buffer.from(data, 'base64');
}
