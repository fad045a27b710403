"use strict";
(() => {
  const content = document.getElementById("content");
  const controls = document.getElementById("controls");
  const sealed = document.getElementById("sealed");
  // Open or fold every card at once (the cards themselves work without this script).
  function enable() {
    const cards = () => content.querySelectorAll("details");
    if (!cards().length) return;
    const button = (label, open) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.addEventListener("click", () => { for (const d of cards()) d.open = open; });
      return b;
    };
    controls.replaceChildren(button("Open all cards", true), button("Fold all cards", false));
    content.querySelector("header")?.after(controls);
    controls.hidden = false;
  }
  if (!sealed) { enable(); return; }
  const form = document.getElementById("unlock");
  const status = document.getElementById("unlock-status");
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  form.hidden = false;
  form.elements.password.focus();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.className = "status";
    status.textContent = "Opening…";
    if (!globalThis.crypto?.subtle) {
      status.className = "status error";
      status.textContent = "This browser cannot decrypt here (WebCrypto needs a file:// or https:// page).";
      return;
    }
    try {
      const password = new TextEncoder().encode(form.elements.password.value);
      const base = await crypto.subtle.importKey("raw", password, "PBKDF2", false, ["deriveKey"]);
      const key = await crypto.subtle.deriveKey(
        { name: "PBKDF2", salt: bytes(sealed.dataset.salt), iterations: Number(sealed.dataset.iterations), hash: "SHA-256" },
        base, { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
      const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes(sealed.dataset.nonce) }, key, bytes(sealed.textContent.trim()));
      // What was sealed is the core's own rendering: escaped text and safe Markdown only.
      content.innerHTML = new TextDecoder().decode(plain);
      document.title = content.querySelector("h1")?.textContent || document.title;
      form.remove();
      sealed.remove();
      enable();
    } catch {
      content.replaceChildren();
      status.className = "status error";
      status.textContent = "That password does not open this file. Nothing is shown.";
      form.elements.password.select();
    }
  });
})();
