// SPDX-License-Identifier: MIT
// deepFreeze for tests that prove the package never writes to the caller's objects.

/**
 * Freezes `value` and everything reachable from it (cycles are fine); returns `value`. Writes to a
 * frozen object throw in the package's strict-mode ESM code, so a mutation cannot go unnoticed.
 */
export function deepFreeze(value, seen = new Set()) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
  if (seen.has(value)) return value;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) deepFreeze(descriptor.value, seen);
  }
  return Object.freeze(value);
}
