// The calendar's surface: zones, local days and windows, for every folder above it.
export { CALENDAR_ERROR_CODES, CalendarError, type CalendarErrorCode } from './errors';
export { isIanaZone, localDate, parseLocalTime, ZoneConverter } from './time-zone';
export {
  checkWindowDates,
  dateInZone,
  datesInRange,
  datesOfWindow,
  dayBefore,
  dayWindow,
  parseCalendarDate,
  parseInstant,
  type ReportWindow,
  shiftDate,
  toReportPeriod,
  windowForDates,
} from './window';
