/** Daily tracking (issue 19): routes, versions, the export's pieces. */
export { exportIntakes, SCHEDULE_CSV_HEADERS, scheduleCsvCells, scheduleJson } from "./export";
export { trackingRoutes } from "./routes";
export { recordDeletion, recordVersion, userToday } from "./versions";
