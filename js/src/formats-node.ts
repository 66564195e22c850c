// SPDX-License-Identifier: MIT
// `cce-wasm/formats` under Node: the Node entry (which loads the speed build) plus compress /
// uncompress / validate for every provider's message format.
import './node.js';

export * from './formats.js';
