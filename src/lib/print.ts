/**
 * The Print link (issue 16), in the browser only: shown once JavaScript runs (without it the
 * page has no dead button, and Ctrl+P prints the same), it calls window.print(); before any
 * print, every `[data-print-date]` shows today's date in the reader's own time zone.
 */
import { printedOn } from "./sharing";

export function stampPrintDates() {
  for (const element of document.querySelectorAll("[data-print-date]")) element.textContent = printedOn(new Date());
}

export function enablePrintButtons() {
  for (const button of document.querySelectorAll<HTMLButtonElement>("[data-print-button]")) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
  window.addEventListener("beforeprint", stampPrintDates);
}
