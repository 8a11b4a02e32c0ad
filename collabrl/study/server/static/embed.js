"use strict";
// A sandboxed custom component on the study page (loaded before study.js, which calls
// buildEmbed on a new embed page and postState on every push). The component runs in an iframe
// with sandbox="allow-scripts" (an opaque origin: it cannot reach this page); it talks to this
// page only by postMessage, and only messages from its own frame are taken. Its writes and done
// are submissions (queued while one is on its way); its events are recorded-only.

const embedQueue = [];
let embedFrame = null;

function buildEmbed(msg, form) {
  embedFrame = el("iframe", null, { src: msg.embed.url, sandbox: "allow-scripts", height: String(msg.embed.height), title: msg.title || "component", class: "embed", "data-testid": "embed" });
  form.appendChild(embedFrame);
}

function postState(state) {
  if (embedFrame && embedFrame.contentWindow) embedFrame.contentWindow.postMessage({ collabrl: 1, op: "state", state }, "*");
}

function embedSend(payload) {
  if (sending) embedQueue.push(payload);
  else submit(payload);
}

addEventListener("message", (event) => {
  if (!embedFrame || event.source !== embedFrame.contentWindow) return;
  const data = event.data;
  if (!data || data.collabrl !== 1) return;
  if (data.op === "ready") postState(view && view.embed ? view.embed.state : {});
  else if (data.op === "set") embedSend({ op: "set", name: String(data.name), value: data.value });
  else if (data.op === "emit") record({ kind: "component", name: String(data.name), data: data.data });
  else if (data.op === "done") embedSend({ op: "done" });
});
