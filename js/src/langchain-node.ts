// SPDX-License-Identifier: MIT
// `cce-wasm/langchain` under Node: the Node entry (which loads the speed build) first.
import './node.js';

export * from './langchain.js';
