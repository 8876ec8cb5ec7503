/** Issue 51: the subscribe page promises 'Priority support' only when CONTACT_EMAIL names where to write. */
import { expect, test } from "bun:test";
import { premiumFeatures } from "../../src/islands/SubscribeFlow";

test.each([
  [null, false],
  ["help@stacktrack.example", true],
])("CONTACT_EMAIL %p: Priority support promised: %p", (contact, promised) => {
  const support = premiumFeatures(contact).find((f) => f.title === "Priority support");
  expect(Boolean(support)).toBe(promised);
  if (contact) expect(support?.text).toContain(contact);
  expect(premiumFeatures(contact).map((f) => f.title)).toContain("Unlimited affiliate links");
});
