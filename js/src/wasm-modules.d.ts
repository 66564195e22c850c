// SPDX-License-Identifier: MIT
// `import m from './x.wasm'` in the workerd entries: the runtime hands over a compiled module.
declare module '*.wasm' {
  const compiled: WebAssembly.Module;
  export default compiled;
}
