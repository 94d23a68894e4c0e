/** A small typed event emitter; engine events are named `onDidX` after this shape. */
export type Listener<T> = (event: T) => void;

export interface Disposable {
  dispose(): void;
}

export class Emitter<T> {
  #listeners = new Set<Listener<T>>();

  /** Subscribe; dispose the result to unsubscribe. */
  readonly event = (listener: Listener<T>): Disposable => {
    this.#listeners.add(listener);
    return { dispose: () => this.#listeners.delete(listener) };
  };

  fire(event: T): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  dispose(): void {
    this.#listeners.clear();
  }
}
