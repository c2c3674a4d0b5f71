// @ts-check
// board/geometry.js — where things are on the board: the measures (desktop and compact),
// a point's column and side, a slot under a pointer, a checker's centre in its stack, and
// the slot an arrow key reaches. No DOM.

/** The board's measures (SVG units). Desktop: a cube column at the left, wide frames and
 *  tray. Compact (phones): no cube column (the cube and the match length sit in the middle
 *  of the tray column, which a taller middle band leaves free), thin side frames, and
 *  checkers that fill their points, so that a phone's width goes to the points: at 375 px
 *  a checker is 25 px wide (18.6 px with the desktop measures). FRAME is the side frames'
 *  width, FY the top and bottom frames' height (the point numbers are written there). */
export function geometry(compact) {
  const m = compact
    ? { SIDE: 0, FRAME: 10, FY: 26, PW: 62, BAR: 62, TRAY: 62, STRIP: 74, R: 31, PL: 290, MID: 136 }
    : { SIDE: 84, FRAME: 26, FY: 26, PW: 62, BAR: 70, TRAY: 84, STRIP: 74, R: 29, PL: 290, MID: 80 };
  const W = m.SIDE + m.FRAME + 12 * m.PW + m.BAR + m.FRAME + m.TRAY;
  const innerLeft = m.SIDE + m.FRAME;
  const innerRight = innerLeft + 12 * m.PW + m.BAR;
  const innerTop = m.STRIP + m.FY;
  const innerBottom = innerTop + 2 * m.PL + m.MID;
  const boardTop = m.STRIP;
  const boardBottom = innerBottom + m.FY;
  const H = boardBottom + m.STRIP;
  const midY = (innerTop + innerBottom) / 2;
  const barX = innerLeft + 6 * m.PW + m.BAR / 2;
  const trayX = innerRight + m.FRAME + m.TRAY / 2;
  const cubeX = compact ? trayX : m.SIDE / 2;
  const leftQuarterX = innerLeft + 3 * m.PW;
  const rightQuarterX = innerLeft + 6 * m.PW + m.BAR + 3 * m.PW;
  return Object.freeze({
    ...m, compact, W, innerLeft, innerRight, innerTop, innerBottom, boardTop, boardBottom, H,
    midY, barX, trayX, cubeX, leftQuarterX, rightQuarterX,
  });
}

export const GEO = geometry(false);
export const GEO_COMPACT = geometry(true);

/** Column (0..11, left to right) and row of a point in the bottom side's numbering. */
export function pointPlace(q) {
  return q <= 12 ? { col: 12 - q, top: false } : { col: q - 13, top: true };
}

export function colX(col, g = GEO) {
  const { innerLeft, PW, BAR } = g;
  return col < 6 ? innerLeft + col * PW + PW / 2 : innerLeft + 6 * PW + BAR + (col - 6) * PW + PW / 2;
}

/** Unmirrored x of a point (1..24) in the bottom side's numbering. */
export function pointX(q, g = GEO) {
  return colX(pointPlace(q).col, g);
}

export function mirror(x, flipped, g = GEO) {
  return flipped ? g.W - x : x;
}

/** Which slot (bottom side's numbering) holds SVG coordinates (x, y), or null. */
export function slotAt(x, y, flipped, g = GEO) {
  const ux = mirror(x, flipped, g);
  if (y < g.innerTop - 4 || y > g.innerBottom + 4) return null;
  if (ux >= g.innerRight + g.FRAME / 2) return 0; // the tray column: bear off
  if (ux >= g.barX - g.BAR / 2 && ux <= g.barX + g.BAR / 2) return 25;
  if (ux < g.innerLeft || ux > g.innerRight) return null;
  let col;
  if (ux < g.barX) col = Math.floor((ux - g.innerLeft) / g.PW);
  else col = 6 + Math.floor((ux - (g.barX + g.BAR / 2)) / g.PW);
  col = Math.max(0, Math.min(11, col));
  const top = y < g.midY;
  return top ? col + 13 : 12 - col;
}

/** A seat's point `a` (in player 0's numbering) in the bottom side's numbering. */
export function toBottom(a, bottom) {
  return bottom === 0 ? a : 25 - a;
}

export function spacing(n, length, g) {
  const d = 2 * g.R;
  return n <= 1 ? d : Math.min(d, (length - d) / (n - 1));
}

/** Centre of checker `i` of `n` on a slot; `mine` says whose bar or tray. */
export function checkerCentre(slot, i, n, mine, g = GEO) {
  if (slot === "bar") {
    const sp = spacing(n, g.PL - 10, g);
    return mine ? { x: g.barX, y: g.midY + g.R + 8 + i * sp }
      : { x: g.barX, y: g.midY - g.R - 8 - i * sp };
  }
  const q = slot;
  const { col, top } = pointPlace(q);
  const sp = spacing(n, g.PL, g);
  const x = colX(col, g);
  return top ? { x, y: g.innerTop + g.R + i * sp } : { x, y: g.innerBottom - g.R - i * sp };
}

/** Keyboard navigation: the slot reached from `q` by an arrow key, as drawn on screen. */
export function slotNeighbour(q, key, flipped) {
  // Build the on-screen grid: row 0 (top) and row 1 (bottom), columns 0..13 where 6 is the
  // bar and 13 the tray column (unmirrored), then mirror.
  const pos = (slot) => {
    if (slot === 25) return { row: 1, col: 6 };
    if (slot === 0) return { row: 1, col: 13 };
    const { col, top } = pointPlace(slot);
    return { row: top ? 0 : 1, col: col < 6 ? col : col + 1 };
  };
  const at = (row, col) => {
    if (col === 6) return 25;
    if (col === 13) return 0;
    const c = col < 6 ? col : col - 1;
    return row === 0 ? c + 13 : 12 - c;
  };
  let { row, col } = pos(q);
  const dx = { ArrowLeft: -1, ArrowRight: 1 }[key] || 0;
  const step = flipped ? -dx : dx;
  if (key === "ArrowUp") row = 0;
  if (key === "ArrowDown") row = 1;
  col = Math.max(0, Math.min(13, col + step));
  if (row === 0 && col === 13) col = 12;
  return at(row, col);
}
