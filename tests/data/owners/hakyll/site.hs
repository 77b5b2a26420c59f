{-# LANGUAGE OverloadedStrings #-}
import Hakyll

feedConfig :: FeedConfiguration
feedConfig = FeedConfiguration
    { feedTitle       = "Tide Log"
    , feedDescription = "Notes from the estuary"
    , feedAuthorName  = "Ines Duarte"
    , feedAuthorEmail = "ines@tides.example"
    , feedRoot        = "https://tides.example"
    }
