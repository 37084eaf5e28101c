// svg.js: helpers every drawing uses. No library: plain DOM calls.
"use strict";
var BM = window.BM || {};
window.BM = BM;
BM.games = {};

// Seat colours, in seat order: the terminal UI's order (red, blue, green,
// yellow, magenta, cyan), then two more for 7 and 8 players.
BM.seatColors = ["#e4572e", "#3f7fe0", "#3fa060", "#f0b020", "#b04fc8", "#1fb0c0", "#ef8a2f", "#8a8f98"];
BM.seatColor = function (s) { return s >= 0 ? BM.seatColors[s % BM.seatColors.length] : "#888"; };

BM.NS = "http://www.w3.org/2000/svg";

// BM.s makes an SVG element: tag, attributes, children (nodes or text).
BM.s = function (tag, attrs, children) {
  var e = document.createElementNS(BM.NS, tag);
  if (attrs) {
    for (var k in attrs) {
      if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    }
  }
  BM.add(e, children);
  return e;
};

// BM.h makes an HTML element the same way.
BM.h = function (tag, attrs, children) {
  var e = document.createElement(tag);
  if (attrs) {
    for (var k in attrs) {
      if (attrs[k] === undefined || attrs[k] === null) continue;
      if (k === "text") e.textContent = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
  }
  BM.add(e, children);
  return e;
};

BM.add = function (e, children) {
  if (children === undefined || children === null) return e;
  if (!Array.isArray(children)) children = [children];
  children.forEach(function (c) {
    if (c === null || c === undefined || c === false) return;
    e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  });
  return e;
};

// BM.text is an SVG text element.
BM.text = function (x, y, str, attrs) {
  var a = Object.assign({ x: x, y: y }, attrs || {});
  return BM.s("text", a, String(str));
};

// BM.title is a tooltip for an SVG element.
BM.title = function (str) { return BM.s("title", null, str); };

// BM.wrap cuts text into lines of at most n characters, at spaces.
BM.wrap = function (text, n) {
  var words = String(text || "").split(/\s+/), lines = [], cur = "";
  words.forEach(function (w) {
    if (!w) return;
    if (cur && (cur + " " + w).length > n) { lines.push(cur); cur = w; }
    else cur = cur ? cur + " " + w : w;
  });
  if (cur) lines.push(cur);
  return lines;
};

// BM.lines draws wrapped text as tspans, centred or left-aligned.
BM.lines = function (x, y, text, n, lh, attrs, maxLines) {
  var ls = BM.wrap(text, n);
  if (maxLines && ls.length > maxLines) {
    ls = ls.slice(0, maxLines);
    ls[maxLines - 1] = ls[maxLines - 1].replace(/.{0,2}$/, "…");
  }
  var t = BM.s("text", Object.assign({ x: x, y: y }, attrs || {}));
  ls.forEach(function (l, i) { t.appendChild(BM.s("tspan", { x: x, dy: i === 0 ? 0 : lh }, l)); });
  return t;
};

// BM.pawn is a player's pawn: a coloured disc with a rim.
BM.pawn = function (x, y, r, seat, label) {
  return BM.s("g", { class: "pawn" }, [
    BM.s("circle", { cx: x, cy: y + r * 0.25, r: r, fill: "rgba(0,0,0,.25)" }),
    BM.s("circle", { cx: x, cy: y, r: r, fill: BM.seatColor(seat), stroke: "#fff", "stroke-width": Math.max(1, r / 4) }),
    label ? BM.text(x, y + r * 0.38, label, { class: "pawnlabel", "font-size": r * 1.1 }) : null,
  ]);
};

// BM.clickable makes el pick action act when clicked (or Enter/Space).
BM.clickable = function (el, act, ctx) {
  if (!act) return el;
  el.classList.add("can");
  el.setAttribute("tabindex", "0");
  el.setAttribute("role", "button");
  el.setAttribute("data-action", act.id);
  el.setAttribute("aria-label", act.label);
  el.appendChild(BM.title(act.label));
  el.addEventListener("click", function (ev) { ev.stopPropagation(); ctx.send(act); });
  el.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); ctx.send(act); }
  });
  return el;
};

// BM.hue gives a stable pleasant colour for a name (tiles, territories).
BM.hue = function (name, sat, light) {
  var h = 0;
  for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return "hsl(" + (h % 360) + "," + (sat || 55) + "%," + (light || 62) + "%)";
};

// BM.seatName names a seat (0-based) as every screen does: "Ada (seat 2)".
BM.seatName = function (frame, seat) {
  var s = (frame.seats || [])[seat];
  return s && s.name ? s.name : "seat " + (seat + 1);
};

// BM.svg starts a drawing of the given size that scales to its box.
BM.svg = function (w, h, cls) {
  return BM.s("svg", { viewBox: "0 0 " + w + " " + h, class: "boardsvg " + (cls || ""), preserveAspectRatio: "xMidYMid meet", role: "img" });
};

// BM.you names a seat, saying "(you)" for the page's own.
BM.you = function (frame, seat) {
  var n = BM.seatName(frame, seat);
  return seat === frame.seat && n !== "you" ? n + " (you)" : n;
};
