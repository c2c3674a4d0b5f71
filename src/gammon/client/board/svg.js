// @ts-check
// board/svg.js — SVG elements made with their attributes (null and undefined ones left
// out), and text.

export const NS = "http://www.w3.org/2000/svg";

/** An SVG element with `attrs` (null and undefined ones left out), added to `parent`.
 *  @param {string} name
 *  @param {Record<string, unknown>} [attrs]
 *  @param {Element | null} [parent] */
export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

/** @returns {SVGTextElement} */
export function text(parent, x, y, content, attrs = {}) {
  const node = /** @type {SVGTextElement} */ (el("text", { x, y, ...attrs }, parent));
  node.textContent = content;
  return node;
}
