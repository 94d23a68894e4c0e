// tier: unit
import { describe, expect, it } from 'vitest';
import { jobEndedOtherwise, until } from '../helpers/wait.ts';

// The tests' wait helper (test/helpers/wait.ts): a wait that can no longer succeed fails at once, saying what it saw.
describe('until', () => {
  it('returns the first truthy value of the probe', async () => {
    let calls = 0;
    expect(await until(() => (++calls === 3 ? 'ready' : undefined), 'the third call')).toBe('ready');
  });

  it('fails at once when the fail probe says what is awaited cannot come, naming what was seen', async () => {
    let probes = 0;
    const job = { status: 'failed', error: 'the page never loaded' };
    await expect(
      until(
        () => {
          probes += 1;
          return job.status === 'completed';
        },
        'the job to complete',
        { timeoutMs: 60_000, fail: jobEndedOtherwise(() => job, ['completed']) },
      ),
    ).rejects.toThrow('gave up waiting for the job to complete: the job ended failed: the page never loaded');
    expect(probes).toBe(1);
  });

  it('a job still on its way, or ended as wanted, is no failure', async () => {
    const fail = jobEndedOtherwise(() => ({ status: 'running' }), ['completed']);
    expect(await fail()).toBeUndefined();
    expect(await jobEndedOtherwise(() => ({ status: 'cancelled' }), ['cancelled', 'failed'])()).toBeUndefined();
    expect(await jobEndedOtherwise(() => undefined, ['completed'])()).toBeUndefined();
    expect(await jobEndedOtherwise(() => ({ status: 'completed', error: null }), ['failed'])()).toBe(
      'the job ended completed',
    );
  });

  it('times out naming what it waited for', async () => {
    await expect(until(() => false, 'nothing', 0)).rejects.toThrow('timed out waiting for nothing');
  });
});
