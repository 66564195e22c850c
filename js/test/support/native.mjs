// SPDX-License-Identifier: MIT
// Runs the native CLI (build/cce) on one request, for native-vs-wasm comparisons.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The native CLI; CI builds it before the JS tests run. */
export const CLI = fileURLToPath(new URL('../../../build/cce', import.meta.url));

/** Why native comparisons cannot run, or undefined when build/cce exists. */
export function missingCli() {
  return existsSync(CLI)
    ? undefined
    : `${CLI} is missing: build the native CLI first (cmake --build build --target cce_cli)`;
}

/** A private temporary directory and a function that removes it. */
export function scratchDir() {
  const dir = mkdtempSync(join(tmpdir(), 'cce-native-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * What the CLI answers for `{messages, options}` written with JSON.stringify (which escapes lone
 * surrogates as \udXXX): `{ok: true, text}` with the result JSON, or `{ok: false, error}` with
 * the error envelope's `error` (exit status 2).
 */
export function nativeCompress(file, messages, options) {
  writeFileSync(file, JSON.stringify({ messages, options }));
  return answer(run(['compress', file]));
}

/** spawnSync of the CLI, retried a few times while a rebuild is replacing the binary. */
function run(args) {
  for (let attempt = 0; ; attempt++) {
    const result = spawnSync(CLI, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
    const busy = ['EACCES', 'ETXTBSY', 'ENOENT'].includes(result.error?.code);
    if (!busy || attempt === 5) return result;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
  }
}

/** The CLI's answer for `uncompress(messages, store, {recursive})`, as {@link nativeCompress}. */
export function nativeUncompress(file, messages, store, recursive) {
  writeFileSync(file, JSON.stringify({ messages, store, options: { recursive } }));
  return answer(run(['uncompress', file]));
}

/** The same as {@link nativeCompress}, asynchronously (to keep both cores busy). */
export async function nativeCompressAsync(file, messages, options) {
  writeFileSync(file, JSON.stringify({ messages, options }));
  for (let attempt = 0; ; attempt++) {
    try {
      return answer(await spawnAsync(['compress', file]));
    } catch (error) {
      const busy = ['EACCES', 'ETXTBSY', 'ENOENT'].includes(error?.code);
      if (!busy || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500)); // a rebuild replaces the binary
    }
  }
}

function spawnAsync(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI, args);
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (status, signal) =>
      resolve({
        status,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

function answer({ status, signal, stdout, stderr, error }) {
  if (error) throw error;
  if (status === 0) return { ok: true, text: stdout };
  if (status === 2) {
    try {
      return { ok: false, error: JSON.parse(stderr).error };
    } catch {
      // fall through: not an envelope
    }
  }
  throw new Error(`build/cce: status ${status} signal ${signal}: ${stderr.slice(0, 500)}`);
}

/**
 * What the wasm API gives for the same call, in the CLI's terms (result JSON or error fields):
 * `call` is `() => compress(...)` or `() => uncompress(...)`; or pass compress, messages, options.
 */
export function wasmAnswer(compressOrCall, messages, options) {
  const call = messages === undefined ? compressOrCall : () => compressOrCall(messages, options);
  try {
    return { ok: true, text: JSON.stringify(call()) };
  } catch (error) {
    if (error?.name !== 'CompressError') throw error;
    const e = { code: error.code, message: error.message };
    if (error.path !== undefined) e.path = error.path;
    return { ok: false, error: e };
  }
}
