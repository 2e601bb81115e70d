// Whether a dialog panel (memory, skills) is open: a flag with listeners, and the hook that follows it.
import { useEffect, useState } from 'preact/hooks';

export function createPanel() {
  let open = false;
  const listeners = new Set<() => void>();
  const set = (value: boolean) => {
    open = value;
    listeners.forEach((l) => l());
  };
  return {
    open: () => set(true),
    close: () => set(false),
    useOpen(): boolean {
      const [value, setValue] = useState(open);
      useEffect(() => {
        const listener = () => setValue(open);
        listeners.add(listener);
        return () => void listeners.delete(listener);
      }, []);
      return value;
    },
  };
}
