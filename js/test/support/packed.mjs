// SPDX-License-Identifier: MIT
// The package as an app gets it from npm: `npm pack` of this checkout, installed from the tarball
// into a project (no workspace links), for the suites that test it as a dependency.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const exec = promisify(execFile);

/** Runs npm quietly (no audit, funding or update notices) in `cwd`. */
export function npm(args, cwd) {
  return exec('npm', args, {
    cwd,
    timeout: 120_000,
    env: {
      ...process.env,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  });
}

/** Packs the checkout into `dir`: the tarball's path and the files it holds. --ignore-scripts:
 * the prepack build already ran as npm test's build step. */
export async function packTarball(dir) {
  const { stdout } = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], root);
  const [info] = JSON.parse(stdout);
  return { tarball: join(dir, info.filename), files: info.files.map((f) => f.path).sort() };
}

/** Installs the tarball into the project at `project` (which has its package.json), offline. */
export async function installTarball(tarball, project) {
  await npm(['install', '--offline', '--no-save', '--no-package-lock', tarball], project);
}
