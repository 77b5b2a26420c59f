import { glob } from "astro/loaders"
import { defineCollection, z } from "astro:content"

// YYYY/MM/DD of the entry's date, in UTC
function datePath(when: Date) {
  const mm = String(when.getUTCMonth() + 1).padStart(2, "0")
  const dd = String(when.getUTCDate()).padStart(2, "0")
  return `${when.getUTCFullYear()}/${mm}/${dd}`
}

const posts = defineCollection({
  loader: glob({
    base: "./content/blog",
    pattern: "**/index.md",
    generateId: ({ entry, data }) => {
      const folder = entry.split("/").slice(-2)[0]
      return `${datePath(data.date as Date)}/${folder}`
    },
  }),
  schema: z.object({ title: z.string(), date: z.coerce.date() }),
})

export const collections = { posts }
