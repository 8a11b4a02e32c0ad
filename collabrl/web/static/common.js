"use strict";
// Helpers shared by the play page and the viewer. Every piece of text from a model, a partner or
// a person is set with textContent: nothing received is ever parsed as HTML.

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function pageToken() {
  return new URLSearchParams(location.search).get("token") || "";
}
