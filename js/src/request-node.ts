// SPDX-License-Identifier: MIT
// `cce-wasm/request` under Node: the Node entry (which loads the speed build) first.
import './node.js';

export * from './request.js';
