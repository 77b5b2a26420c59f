-- A small Hakyll site: the routes sitecite reads, written the ways Hakyll sites write them.
{-# LANGUAGE OverloadedStrings #-}
import Hakyll
import System.FilePath (takeBaseName, takeDirectory, (</>))

main :: IO ()
main = hakyll $ do
    match "404.md" $ do
        route   $ setExtension "html"
        compile pandocCompiler

    match (fromList ["bio.md", "teaching.md"]) $ do
        route prettyRoute
        compile pandocCompiler

    match "posts/*" $ do
        route $ withoutFolder `composeRoutes` withoutDate `composeRoutes` prettyRoute
        compile pandocCompiler

    match "notes/*" $ do
        route $ setExtension "html"
        compile pandocCompiler

-- "2012-11-30-title.md" -> "title.md"
withoutDate :: Routes
withoutDate = gsubRoute "[0-9]+-[0-9]+-[0-9]+-" (const "")

withoutFolder :: Routes
withoutFolder = gsubRoute "posts/" $ const ""

-- "a/b.md" -> "a/b/index.html", served at /a/b/
prettyRoute :: Routes
prettyRoute = customRoute $ \ident ->
    let file = toFilePath ident
    in takeDirectory file </> takeBaseName file </> "index.html"
