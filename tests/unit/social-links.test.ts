/**
 * Issue 38 §3: social links as people type them (src/lib/validation.ts normalizeSocialLink),
 * one table for the normaliser and the profile schema that client and server both parse with.
 */
import { describe, expect, test } from "bun:test";
import { MESSAGES } from "../../src/lib/account-messages";
import type { SocialField } from "../../src/lib/constants";
import { normalizeSocialLink, profileUpdateSchema } from "../../src/lib/validation";

const OK: [SocialField, string, string][] = [
  ["instagramUrl", "instagram.com/maya.runs", "https://instagram.com/maya.runs"],
  ["instagramUrl", "www.instagram.com/maya.runs/", "https://www.instagram.com/maya.runs/"],
  ["instagramUrl", "@maya.runs", "https://www.instagram.com/maya.runs"],
  ["instagramUrl", "  @maya.runs  ", "https://www.instagram.com/maya.runs"],
  ["instagramUrl", "https://instagram.com/maya.runs", "https://instagram.com/maya.runs"],
  ["twitterUrl", "@maya_runs", "https://x.com/maya_runs"],
  ["twitterUrl", "x.com/maya_runs", "https://x.com/maya_runs"],
  ["twitterUrl", "twitter.com/maya_runs", "https://twitter.com/maya_runs"],
  ["tiktokUrl", "@maya.runs", "https://www.tiktok.com/@maya.runs"],
  ["tiktokUrl", "tiktok.com/@maya.runs", "https://tiktok.com/@maya.runs"],
  ["youtubeUrl", "www.youtube.com/@maya", "https://www.youtube.com/@maya"],
  ["youtubeUrl", "@maya-runs", "https://www.youtube.com/@maya-runs"],
  ["youtubeUrl", "youtube.com/channel/UC123", "https://youtube.com/channel/UC123"],
  ["facebookUrl", "https://facebook.com/maya", "https://facebook.com/maya"],
  ["websiteUrl", "http://maya.example", "http://maya.example"],
  ["websiteUrl", "", ""],
  // Issue 51: a Website without a scheme gets https://, as the platforms' short forms do.
  ["websiteUrl", "mayaruns.example", "https://mayaruns.example"],
  ["websiteUrl", "  www.mayaruns.example/blog?x=1  ", "https://www.mayaruns.example/blog?x=1"],
  ["websiteUrl", "shop.maya-runs.co.uk", "https://shop.maya-runs.co.uk"],
  ["instagramUrl", "   ", ""],
];

const REFUSED: [SocialField, string][] = [
  ["instagramUrl", "maya.runs"], // neither a URL nor a handle (no @)
  ["instagramUrl", "@"],
  ["instagramUrl", "@maya runs"],
  ["instagramUrl", "@maya/../x"],
  ["instagramUrl", "youtube.com/@maya"], // another platform's address
  ["instagramUrl", "evil.com/instagram.com/maya"],
  ["instagramUrl", "instagram.com.evil.com/maya"],
  ["twitterUrl", "@this_handle_is_too_long"],
  ["youtubeUrl", "@ab"],
  ["tiktokUrl", "javascript:alert(1)"],
  ["facebookUrl", "@maya"], // only the four platforms take a handle
  ["facebookUrl", "facebook.com/maya"],
  ["linkedinUrl", "linkedin.com/in/maya"],
  ["websiteUrl", "not a url"],
  ["websiteUrl", "maya"], // no dot: not a domain name
  ["websiteUrl", "maya.123"], // a TLD has letters
  ["websiteUrl", "user@maya.example"],
  ["websiteUrl", "maya.example:8080"], // a port needs the scheme written
  ["websiteUrl", "-maya.example"],
  ["websiteUrl", "javascript:alert(1)"],
  ["websiteUrl", "//maya.example"],
  ["websiteUrl", "maya .example"],
];

describe("normalizeSocialLink", () => {
  test.each(OK)("%s: %p is stored as %p", (field, typed, stored) => {
    expect(normalizeSocialLink(field, typed)).toBe(stored);
    const parsed = profileUpdateSchema.safeParse({ [field]: typed });
    expect(parsed.success).toBe(true);
    expect(parsed.data?.[field]).toBe(stored);
  });

  test.each(REFUSED)("%s: %p is refused with the URL message", (field, typed) => {
    expect(normalizeSocialLink(field, typed)).toBeNull();
    const parsed = profileUpdateSchema.safeParse({ [field]: typed });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path[0], i.message])).toEqual([[field, MESSAGES.url]]);
  });
});
