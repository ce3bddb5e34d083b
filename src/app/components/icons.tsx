// Inline icons (nothing is fetched at run time).
const path = (d: string) => (
  <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
    <path d={d} />
  </svg>
);

export const icons = {
  overview: path('M3 13h8V3H3zM13 21h8V11h-8zM3 21h8v-6H3zM13 3v6h8V3z'),
  node: path('M4 5h16v6H4zM4 13h16v6H4zM8 8h.01M8 16h.01'),
  networkpolicy: path('M12 3l8 4v5c0 5-3.5 8-8 9-4.5-1-8-4-8-9V7zM9 12l2 2 4-4'),
  daemonset: path('M4 4h6v6H4zM14 4h6v6h-6zM4 14h6v6H4zM14 14h6v6h-6z'),
  volumeattachment: path('M4 7c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zM4 7v10c0 1.7 3.6 3 8 3s8-1.3 8-3V7M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3'),
  reachability: path('M3 6a2 2 0 1 0 4 0a2 2 0 1 0-4 0M17 6a2 2 0 1 0 4 0a2 2 0 1 0-4 0M10 18a2 2 0 1 0 4 0a2 2 0 1 0-4 0M7 6h10M6 7.8l5 8.4M18 7.8l-5 8.4'),
  namespace: path('M3 7l9-4 9 4-9 4zM3 12l9 4 9-4M3 17l9 4 9-4'),
  pod: path('M12 2l8 4.5v9L12 20l-8-4.5v-9zM12 11l8-4.5M12 11v9M12 11L4 6.5'),
  controllerrevision: path('M12 8v4l3 3M3 12a9 9 0 1 0 3-6.7L3 8M3 3v5h5'),
  configmap: path('M5 4h14v16H5zM9 8h6M9 12h6M9 16h4'),
  events: path('M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6zM10 19a2 2 0 0 0 4 0'),
  settings: path('M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z'),
  user: path('M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0'),
  access: path('M12 3l8 4v5c0 5-3.5 8-8 9-4.5-1-8-4-8-9V7zM12 9a2 2 0 1 0 0 4 2 2 0 0 0 0-4zM12 13v3'),
  role: path('M8 11V7a4 4 0 0 1 8 0v4M5 11h14v10H5zM12 15v2'),
  binding: path('M9 15l6-6M10 6.5l1.5-1.5a4 4 0 0 1 5.7 5.7L15.5 12.5M8.5 11.5L7 13a4 4 0 0 0 5.7 5.7l1.5-1.5'),
  sun: path('M12 17a5 5 0 1 0 0-10 5 5 0 0 0 0 10zM12 1v2M12 21v2M4.2 4.2l1.4 1.4M18.4 18.4l1.4 1.4M1 12h2M21 12h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4'),
  moon: path('M21 12.8A9 9 0 1 1 11.2 3 7 7 0 0 0 21 12.8z'),
  sortUp: path('M7 14l5-5 5 5'),
  sortDown: path('M7 10l5 5 5-5'),
};

export function Logo() {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true">
      <path fill="#326ce5" d="M16 2 4 8v16l12 6 12-6V8z" />
      <path fill="#fff" d="M16 8 9 11.5v9L16 24l7-3.5v-9zm0 2.3 4.8 2.4L16 15l-4.8-2.3zm-5 4.1 4 2v4.9l-4-2zm6 6.9v-4.9l4-2v4.9z" />
    </svg>
  );
}
