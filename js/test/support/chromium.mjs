// SPDX-License-Identifier: MIT
// Chromium command-line flags shared by the package's and the demo's browser tests.

/** Headless-safe flags that also keep Chromium from reaching the network on its own. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
