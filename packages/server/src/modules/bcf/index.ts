// BCF (buildingSMART's BIM Collaboration Format): a file's annotations and saved views out as BCF 3.0,
// and BCF 2.1 or 3.0 files in.
export { bcfRoutes } from './routes.ts'
