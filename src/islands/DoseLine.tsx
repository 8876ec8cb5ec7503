import { dosePhrase } from "../lib/dose";
import { type StrengthLine, withStrength } from "../lib/strength";

interface Props {
  doseAmount?: number | null;
  quantityType: string;
  /** Issue 47: the owner's list shows the dose's strength (`1 soft gel · 50 mcg vitamin D`); never public. */
  servingSize?: number;
  ingredients?: StrengthLine[];
}

/** The dose in words and a bullet before the frequency ('2 capsules • '); nothing when there is no phrase (Other, no amount). */
export default function DoseLine({ doseAmount, quantityType, servingSize, ingredients }: Props) {
  const dose = withStrength(dosePhrase(doseAmount, quantityType), doseAmount, quantityType, {
    servingSize,
    ingredients,
  });
  if (!dose) return null;
  return (
    <>
      {dose} <span aria-hidden="true">•</span>{" "}
    </>
  );
}
