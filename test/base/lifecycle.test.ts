// tier: unit
import { describe, expect, it } from 'vitest';
import { DisposeError, Lifecycle } from '../../src-main/base/lifecycle.js';

describe('Lifecycle: resources released in reverse, at most once, errors collected', () => {
  it('releases newest first, awaiting async releases in turn', async () => {
    const order: string[] = [];
    const scope = new Lifecycle('test');
    scope.add('lock', (name) => void order.push(name), 'lock');
    scope.add('browser', async (name) => {
      await Promise.resolve();
      order.push(name);
    });
    scope.defer(() => void order.push('timer'));
    expect(scope.size).toBe(3);
    await scope.dispose();
    expect(order).toEqual(['timer', 'browser', 'lock']);
    expect(scope.size).toBe(0);
  });

  it('releases each resource once, however often dispose is called, even concurrently', async () => {
    let released = 0;
    const scope = new Lifecycle('test');
    scope.defer(() => {
      released += 1;
    });
    await Promise.all([scope.dispose(), scope.dispose()]);
    await scope.dispose();
    expect(released).toBe(1);
  });

  it('a failing release does not stop the others; the error names every failure', async () => {
    const order: string[] = [];
    const scope = new Lifecycle('session');
    scope.defer(() => void order.push('first'), 'profile lock');
    scope.defer(() => {
      throw new Error('close hung');
    }, 'browser');
    scope.defer(async () => {
      order.push('third');
      throw new Error('socket gone');
    }, 'forwarder');
    const error = await scope.dispose().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DisposeError);
    expect((error as DisposeError).errors).toHaveLength(2);
    expect((error as Error).message).toBe(
      'session: 2 release(s) failed: forwarder (socket gone); browser (close hung)',
    );
    expect(order).toEqual(['third', 'first']);
  });

  it('a resource registered after dispose is released at once and the registration throws', async () => {
    let released = false;
    const scope = new Lifecycle('app');
    await scope.dispose();
    expect(() =>
      scope.add(
        {},
        () => {
          released = true;
        },
        'late browser',
      ),
    ).toThrow("app is already disposed; 'late browser' was released at once");
    await Promise.resolve();
    expect(released).toBe(true);
  });

  it('nested scopes release in their place in the order', async () => {
    const order: string[] = [];
    const app = new Lifecycle('app');
    app.defer(() => void order.push('store'));
    const jobs = app.child('jobs');
    jobs.defer(() => void order.push('job browser'));
    jobs.defer(() => void order.push('job timer'));
    app.defer(() => void order.push('server'));
    await app.dispose();
    expect(order).toEqual(['server', 'job timer', 'job browser', 'store']);
    // The child was disposed through its parent: a second dispose releases nothing more.
    await jobs.dispose();
    expect(order).toHaveLength(4);
  });

  it('keep() hands the resources to the caller: the builder scope then releases nothing', async () => {
    const order: string[] = [];
    const building = new Lifecycle('session');
    building.defer(() => void order.push('browser'));
    const owned = building.keep('session 42');
    await building.dispose();
    expect(order).toEqual([]);
    await owned.dispose();
    expect(order).toEqual(['browser']);
  });

  it('synchronous releases up to the first awaited one run as dispose() is called, in the same tick', () => {
    const order: string[] = [];
    const scope = new Lifecycle('login');
    scope.defer(() => void order.push('lock'));
    scope.defer(async () => void order.push('browser'));
    scope.defer(() => void order.push('live view'));
    scope.defer(() => void order.push('timer'));
    void scope.dispose();
    // The live view is gone before dispose() returns; the browser's close (awaited) and the lock come after.
    expect(order).toEqual(['timer', 'live view', 'browser']);
  });
});
