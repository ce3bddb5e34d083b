// The Monaco theme that follows the app's light/dark choice (the `data-theme`
// attribute the layout sets on <html>).
import { useEffect, useState } from 'react';

const current = () => (document.documentElement.dataset.theme === 'dark' ? 'kw-dark' : 'kw-light');

export function useMonacoTheme(): string {
  const [theme, setTheme] = useState(current);
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(current()));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}
