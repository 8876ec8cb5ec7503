/**
 * A dose and a schedule in words (issue 38): `2 capsules`, `1 soft gel`, `0.5 teaspoon`, `5`
 * (Other); `Morning and evening, weekdays`, `As needed`. Pure and import-light: the API's
 * export, the public page and the dashboard's islands all use it.
 */
import type { DoseTime, Schedule } from "./schedule";

/** Each quantity type's noun, singular and plural; `Other` has none (the amount stands alone). */
const NOUNS: Record<string, readonly [string, string] | null> = {
  "Capsule(s)": ["capsule", "capsules"],
  "Tablet(s)": ["tablet", "tablets"],
  "Gummy(ies)": ["gummy", "gummies"],
  "Soft Gel": ["soft gel", "soft gels"],
  Lozenge: ["lozenge", "lozenges"],
  "Teaspoon(s)": ["teaspoon", "teaspoons"],
  "Tablespoon(s)": ["tablespoon", "tablespoons"],
  "Drop(s)": ["drop", "drops"],
  Spray: ["spray", "sprays"],
  Other: null,
};

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The type's noun for `amount`: singular up to 1, plural above it or without an amount; '' for `Other`. */
export function doseNoun(doseAmount: number | null | undefined, quantityType: string): string {
  const nouns = quantityType in NOUNS ? NOUNS[quantityType] : ([quantityType, quantityType] as const);
  if (!nouns) return "";
  return doseAmount != null && doseAmount <= 1 ? nouns[0] : nouns[1];
}

/**
 * The dose as a phrase: the amount and its noun, plural above 1 (`0.5 teaspoon`, `1 soft gel`,
 * `1.5 teaspoons`); with `Other` the amount alone. Without an amount there is no phrase to
 * build: the quantity type as the spec names it (`Capsule(s)`), as the pages showed it before.
 */
export function dosePhrase(doseAmount: number | null | undefined, quantityType: string): string {
  if (doseAmount == null) return quantityType;
  const noun = doseNoun(doseAmount, quantityType);
  return noun ? `${doseAmount} ${noun}` : String(doseAmount);
}

const TIME_WORDS: Record<DoseTime, string> = {
  morning: "morning",
  afternoon: "afternoon",
  evening: "evening",
  bedtime: "bedtime",
  anytime: "any time",
};
const DAY_WORDS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;

/** 'a', 'a and b', 'a, b and c'. */
function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/**
 * The Frequency text a schedule suggests: `Morning and evening, weekdays`, `Any time, every
 * day`, `Bedtime, Mon, Wed and Fri`, `Morning, every 2 days`, `Any time, 5 days on, 2 off`;
 * `As needed` for null. Times in the day's order.
 */
export function scheduleSentence(schedule: Schedule | null): string {
  if (schedule === null) return "As needed";
  const order: DoseTime[] = ["morning", "afternoon", "evening", "bedtime", "anytime"];
  const times = joinWords(order.filter((t) => schedule.times.includes(t)).map((t) => TIME_WORDS[t]));
  const days = [...new Set(schedule.days)].sort((a, b) => a - b);
  const key = days.join("");
  const when = schedule.every
    ? `every ${schedule.every.days} days`
    : schedule.cycle
      ? `${schedule.cycle.on} ${schedule.cycle.on === 1 ? "day" : "days"} on, ${schedule.cycle.off} off`
      : key === "1234567"
        ? "every day"
        : key === "12345"
          ? "weekdays"
          : key === "67"
            ? "weekends"
            : joinWords(days.map((d) => DAY_WORDS[d - 1] ?? String(d)));
  return capitalise([times, when].filter(Boolean).join(", "));
}
