// A shared HTML file to its first screen in Debian's headless Chromium: the first contentful
// paint after navigation, median of 7 fresh pages (the browser started once). Usage:
// node www/bench/share-open.mjs FILE.html
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";

const file = process.argv[2];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const paints = [];
const loads = [];
for (let i = 0; i < 7; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  const timing = await page.evaluate(() => new Promise((done) => {
    const read = () => {
      const paint = performance.getEntriesByName("first-contentful-paint")[0];
      if (!paint) return setTimeout(read, 20);
      const nav = performance.getEntriesByType("navigation")[0];
      done({ paint: paint.startTime, load: nav.loadEventEnd });
    };
    read();
  }));
  paints.push(timing.paint);
  loads.push(timing.load);
  await context.close();
}
await browser.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`first screen of the shared file: median ${median(paints).toFixed(0)} ms (first contentful paint; whole file loaded in ${median(loads).toFixed(0)} ms)`);
