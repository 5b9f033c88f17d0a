/** The timers of the view on screen: all are cancelled when another view replaces it. */
export class Timers {
  private ids = new Set<ReturnType<typeof setTimeout>>();

  /** Runs `fn` after `ms`, unless the view is gone by then. */
  later(fn: () => unknown, ms: number): void {
    const id = setTimeout(() => {
      this.ids.delete(id);
      void fn();
    }, ms);
    this.ids.add(id);
  }

  cancel(): void {
    for (const id of this.ids) clearTimeout(id);
    this.ids.clear();
  }
}
