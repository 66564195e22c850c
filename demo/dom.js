// SPDX-License-Identifier: MIT
// Small DOM and formatting helpers shared by every tab of the demo page.
//
// User content only ever enters the page through these as text, never as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an element; string children become text nodes (never parsed as HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Creates an SVG element. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children) el.append(child instanceof Node ? child : String(child));
  return el;
}

/** An integer with thousands separators, the same on every machine. */
export const fmtInt = (n) => Number(n).toLocaleString('en-US');
/** `s` cut to `n` characters, the last one an ellipsis when it was longer. */
export const truncate = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
