// Stock and refills (issue 40, issue 45 §5): PUT /api/supplements/{id}/stock and POST
// /api/supplements/{id}/refills (api/supplements/stock.ts), against the stock suite on a migrated database
// copy: what is left across the log, stock events × order (a pack before any count), run-out
// dates, and the routes' 400/404/409s. The arithmetic (src/lib/stock.ts) has its unit table.
import { moduleConfig } from "./base.mjs";

export default moduleConfig("stock", ["api/supplements/stock.ts"], ["tests/api/stock.test.ts"]);
