/** Artifact ids: `art_` and 32 random hex digits, unguessable, so an id alone reveals nothing. */
import { randomUUID } from 'node:crypto';

export function newArtifactId(): string {
  return `art_${randomUUID().replaceAll('-', '')}`;
}
