// The events feature: the cluster-wide Events page and the Events section of detail pages.
export { EventsPage } from './EventsPage.tsx';
export { EventsSection, EventTable } from './EventsSection.tsx';
