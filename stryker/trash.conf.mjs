// Delete with Undo (issue 38, issue 45 §5): api/supplements/trash.ts, the copy kept by a delete
// and put back by Undo (row, versions, clicks, stock × Undo), its window and purge, against the
// Undo suite on a migrated database copy.
import { moduleConfig } from "./base.mjs";

export default moduleConfig("trash", ["api/supplements/trash.ts"], ["tests/api/supplements-undo.test.ts"]);
