/**
 * The nutrient table (issue 47): data, not code. Each nutrient's unit, the units accepted when
 * entering it (converted on entry, src/lib/ingredients.ts), and the adult (19+, men and women)
 * Tolerable Upper Intake Level where one exists. Sources: the NIH Office of Dietary Supplements
 * (ODS) health-professional fact sheets, https://ods.od.nih.gov/factsheets/<Name>-HealthProfessional/,
 * which quote the Food and Nutrition Board's DRIs; docs/ingredients.md. Aliases feed the
 * dialog's picker (`d3`, `cholecalciferol` find Vitamin D) and the name-to-nutrient prefill.
 * Import-light: no zod, no React.
 */

export interface Nutrient {
  id: string;
  name: string;
  /** The unit totals are kept and shown in. */
  unit: string;
  /** Units accepted on entry (besides µg and ug, spellings of mcg). */
  units: readonly string[];
  /** Adult UL in `unit`, or null where none is set. */
  ul: number | null;
  /** What the UL applies to when not to all sources, or a guide value where there is no UL. */
  ulNote: string | null;
  /** Other names a user may type: forms, letters, common label words (lower case). */
  aliases: readonly string[];
}

const MG = ["mg", "mcg", "g"] as const;
const MCG = ["mcg", "mg", "g"] as const;

export const NUTRIENTS: readonly Nutrient[] = [
  // ODS Vitamin A fact sheet, Table 3: UL 3,000 mcg RAE of preformed vitamin A (retinol); not beta-carotene.
  {
    id: "vitamin-a",
    name: "Vitamin A",
    unit: "mcg RAE",
    units: ["mcg RAE", "mcg", "mg", "IU"],
    ul: 3000,
    ulNote: "Preformed vitamin A (retinol) only, not beta-carotene",
    aliases: ["retinol", "retinyl palmitate", "retinyl acetate", "beta-carotene", "beta carotene"],
  },
  // ODS Vitamin C fact sheet, Table 3: UL 2,000 mg.
  {
    id: "vitamin-c",
    name: "Vitamin C",
    unit: "mg",
    units: MG,
    ul: 2000,
    ulNote: null,
    aliases: ["ascorbic acid", "ascorbate", "sodium ascorbate"],
  },
  // ODS Vitamin D fact sheet, Table 4: UL 100 mcg (4,000 IU).
  {
    id: "vitamin-d",
    name: "Vitamin D",
    unit: "mcg",
    units: [...MCG, "IU"],
    ul: 100,
    ulNote: null,
    aliases: ["vitamin d3", "vitamin d2", "d3", "d2", "cholecalciferol", "ergocalciferol", "calciferol"],
  },
  // ODS Vitamin E fact sheet, Table 2: UL 1,000 mg of any form of supplemental alpha-tocopherol.
  {
    id: "vitamin-e",
    name: "Vitamin E",
    unit: "mg",
    units: [...MG, "IU"],
    ul: 1000,
    ulNote: "Supplemental alpha-tocopherol",
    aliases: ["tocopherol", "alpha-tocopherol", "d-alpha-tocopherol", "tocopheryl"],
  },
  // ODS Vitamin K fact sheet: no UL established.
  {
    id: "vitamin-k",
    name: "Vitamin K",
    unit: "mcg",
    units: MCG,
    ul: null,
    ulNote: null,
    aliases: ["vitamin k1", "vitamin k2", "k1", "k2", "mk-7", "mk7", "mk-4", "phylloquinone", "menaquinone"],
  },
  // ODS Thiamin fact sheet: no UL established.
  {
    id: "thiamin",
    name: "Thiamin (B1)",
    unit: "mg",
    units: MG,
    ul: null,
    ulNote: null,
    aliases: ["thiamine", "vitamin b1", "b1", "benfotiamine"],
  },
  // ODS Riboflavin fact sheet: no UL established.
  {
    id: "riboflavin",
    name: "Riboflavin (B2)",
    unit: "mg",
    units: MG,
    ul: null,
    ulNote: null,
    aliases: ["vitamin b2", "b2"],
  },
  // ODS Niacin fact sheet, Table 2: UL 35 mg from supplements and fortified food.
  {
    id: "niacin",
    name: "Niacin (B3)",
    unit: "mg",
    units: MG,
    ul: 35,
    ulNote: "From supplements and fortified food",
    aliases: ["vitamin b3", "b3", "niacinamide", "nicotinamide", "nicotinic acid"],
  },
  // ODS Vitamin B6 fact sheet, Table 2: UL 100 mg.
  {
    id: "vitamin-b6",
    name: "Vitamin B6",
    unit: "mg",
    units: MG,
    ul: 100,
    ulNote: null,
    aliases: ["b6", "pyridoxine", "pyridoxal", "p5p", "p-5-p"],
  },
  // ODS Folate fact sheet, Table 2: UL 1,000 mcg of folic acid from supplements and fortified food.
  {
    id: "folate",
    name: "Folate",
    unit: "mcg DFE",
    units: ["mcg DFE", "mcg", "mg"],
    ul: 1000,
    ulNote: "Folic acid from supplements and fortified food",
    aliases: ["folic acid", "vitamin b9", "b9", "methylfolate", "5-mthf", "l-methylfolate"],
  },
  // ODS Vitamin B12 fact sheet: no UL established.
  {
    id: "vitamin-b12",
    name: "Vitamin B12",
    unit: "mcg",
    units: MCG,
    ul: null,
    ulNote: null,
    aliases: ["b12", "cobalamin", "methylcobalamin", "cyanocobalamin", "adenosylcobalamin"],
  },
  // ODS Biotin fact sheet: no UL established.
  { id: "biotin", name: "Biotin", unit: "mcg", units: MCG, ul: null, ulNote: null, aliases: ["vitamin b7", "b7"] },
  // ODS Pantothenic Acid fact sheet: no UL established.
  {
    id: "pantothenic-acid",
    name: "Pantothenic acid (B5)",
    unit: "mg",
    units: MG,
    ul: null,
    ulNote: null,
    aliases: ["vitamin b5", "b5", "pantothenate", "calcium pantothenate"],
  },
  // ODS Choline fact sheet, Table 2: UL 3,500 mg.
  {
    id: "choline",
    name: "Choline",
    unit: "mg",
    units: MG,
    ul: 3500,
    ulNote: null,
    aliases: ["choline bitartrate", "alpha-gpc", "citicoline"],
  },
  // ODS Calcium fact sheet, Table 3: UL 2,500 mg at 19–50 years, 2,000 mg from 51.
  {
    id: "calcium",
    name: "Calcium",
    unit: "mg",
    units: MG,
    ul: 2500,
    ulNote: "2,000 mg from age 51",
    aliases: ["calcium carbonate", "calcium citrate"],
  },
  // ODS Iron fact sheet, Table 3: UL 45 mg.
  {
    id: "iron",
    name: "Iron",
    unit: "mg",
    units: MG,
    ul: 45,
    ulNote: null,
    aliases: ["ferrous", "ferrous sulfate", "ferrous bisglycinate", "iron bisglycinate"],
  },
  // ODS Magnesium fact sheet, Table 3: UL 350 mg from supplements and medications only.
  {
    id: "magnesium",
    name: "Magnesium",
    unit: "mg",
    units: MG,
    ul: 350,
    ulNote: "From supplements and medications only",
    aliases: ["magnesium glycinate", "magnesium citrate", "magnesium oxide", "magnesium threonate"],
  },
  // ODS Zinc fact sheet, Table 2: UL 40 mg.
  {
    id: "zinc",
    name: "Zinc",
    unit: "mg",
    units: MG,
    ul: 40,
    ulNote: null,
    aliases: ["zinc picolinate", "zinc gluconate", "zinc citrate"],
  },
  // ODS Selenium fact sheet, Table 2: UL 400 mcg.
  {
    id: "selenium",
    name: "Selenium",
    unit: "mcg",
    units: MCG,
    ul: 400,
    ulNote: null,
    aliases: ["selenomethionine", "sodium selenite"],
  },
  // ODS Iodine fact sheet, Table 2: UL 1,100 mcg.
  {
    id: "iodine",
    name: "Iodine",
    unit: "mcg",
    units: MCG,
    ul: 1100,
    ulNote: null,
    aliases: ["potassium iodide", "kelp", "iodide"],
  },
  // ODS Copper fact sheet, Table 2: UL 10,000 mcg (10 mg).
  {
    id: "copper",
    name: "Copper",
    unit: "mcg",
    units: MCG,
    ul: 10000,
    ulNote: null,
    aliases: ["cupric", "copper gluconate"],
  },
  // ODS Manganese fact sheet, Table 2: UL 11 mg.
  { id: "manganese", name: "Manganese", unit: "mg", units: MG, ul: 11, ulNote: null, aliases: [] },
  // ODS Chromium fact sheet: no UL established.
  {
    id: "chromium",
    name: "Chromium",
    unit: "mcg",
    units: MCG,
    ul: null,
    ulNote: null,
    aliases: ["chromium picolinate"],
  },
  // ODS Molybdenum fact sheet, Table 2: UL 2,000 mcg.
  { id: "molybdenum", name: "Molybdenum", unit: "mcg", units: MCG, ul: 2000, ulNote: null, aliases: [] },
  // ODS Potassium fact sheet: no UL established.
  {
    id: "potassium",
    name: "Potassium",
    unit: "mg",
    units: MG,
    ul: null,
    ulNote: null,
    aliases: ["potassium citrate", "potassium chloride"],
  },
  // ODS Boron fact sheet, Table 1: UL 20 mg.
  { id: "boron", name: "Boron", unit: "mg", units: MG, ul: 20, ulNote: null, aliases: [] },
  // ODS Omega-3 Fatty Acids fact sheet: no UL for EPA + DHA (FDA: up to 5 g a day from supplements is safe).
  {
    id: "omega-3",
    name: "Omega-3 (EPA + DHA)",
    unit: "mg",
    units: MG,
    ul: null,
    ulNote: "EPA + DHA; no UL (FDA: up to 5,000 mg a day from supplements)",
    aliases: ["epa", "dha", "fish oil", "omega 3", "krill oil", "algal oil"],
  },
  // No UL; FDA ("Spilling the Beans", 2024): up to 400 mg a day for healthy adults, a guide only.
  {
    id: "caffeine",
    name: "Caffeine",
    unit: "mg",
    units: MG,
    ul: null,
    ulNote: "No UL; about 400 mg a day is a guide for healthy adults (FDA), not a limit",
    aliases: ["coffee", "guarana", "green tea extract"],
  },
  // ODS Phosphorus fact sheet, Table 2: UL 4,000 mg (19–70 years).
  {
    id: "phosphorus",
    name: "Phosphorus",
    unit: "mg",
    units: MG,
    ul: 4000,
    ulNote: "19–70 years",
    aliases: ["phosphate"],
  },
  // ODS Fluoride fact sheet, Table 2: UL 10 mg.
  { id: "fluoride", name: "Fluoride", unit: "mg", units: MG, ul: 10, ulNote: null, aliases: ["sodium fluoride"] },
];

export const NUTRIENTS_BY_ID: ReadonlyMap<string, Nutrient> = new Map(NUTRIENTS.map((n) => [n.id, n]));
