import { describe, expect, it } from 'vitest';
import { intradayCron } from '../../../lib/workflow';

describe('intradayCron', () => {
  it.each([
    [{ everyMinutes: 15, fromHour: 8, toHour: 20 }, 10, 'cron(10/15 8-19 * * ? *)'],
    [{ everyMinutes: 20, fromHour: 0, toHour: 24 }, 7, 'cron(7/20 0-23 * * ? *)'],
    [{ everyMinutes: 30, fromHour: 9, toHour: 10 }, 0, 'cron(0/30 9 * * ? *)'],
    [{ everyMinutes: 60, fromHour: 8, toHour: 20 }, 55, 'cron(55 8-19 * * ? *)'],
    [{ everyMinutes: 120, fromHour: 8, toHour: 20 }, 3, 'cron(3 8,10,12,14,16,18 * * ? *)'],
    [{ everyMinutes: 180, fromHour: 7, toHour: 20 }, 0, 'cron(0 7,10,13,16,19 * * ? *)'],
    [{ everyMinutes: 720, fromHour: 0, toHour: 24 }, 30, 'cron(30 0,12 * * ? *)'],
    [{ everyMinutes: 60, fromHour: 23, toHour: 24 }, 5, 'cron(5 23 * * ? *)'],
  ] as const)('writes %j at minute %i as %s', (schedule, minute, cron) => {
    expect(intradayCron(schedule, minute)).toBe(cron);
  });
});
