import { dosePhrase } from "../lib/dose";

/** The dose in words and a bullet before the frequency ('2 capsules • '); nothing when there is no phrase (Other, no amount). */
export default function DoseLine({ doseAmount, quantityType }: { doseAmount?: number | null; quantityType: string }) {
  const dose = dosePhrase(doseAmount, quantityType);
  if (!dose) return null;
  return (
    <>
      {dose} <span aria-hidden="true">•</span>{" "}
    </>
  );
}
